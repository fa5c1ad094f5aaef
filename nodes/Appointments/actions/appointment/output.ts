/**
 * What Get and Get Many return for each appointment. Version 4: *Output* (Simplified, Raw, Selected Fields), as
 * n8n's own nodes offer it, so a builder decides what an AI agent reads; versions 2 and 3: the *Simplify* switch;
 * version 1: the full record from Get.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import { fieldPicker, simplifyAppointment } from '../../shared/simplify.js';
import { inputError, withFix } from '../../shared/validation.js';

export const OUTPUTS = [
	{
		name: 'Simplified',
		value: 'simple',
		description: 'Key, code, status, start, calendar and client',
	},
	{ name: 'Raw', value: 'raw', description: 'The full record, as the service gives it' },
	{ name: 'Selected Fields', value: 'selectedFields', description: 'Only the fields picked below' },
] as const satisfies readonly INodePropertyOptions[];

/** The record's documented fields, as dot paths (each option's description): a field keeps its place (`person.email`). */
const FIELD_OPTIONS = Object.entries({
	'Calendar Key': 'calendar.calendar_key',
	'Calendar Name': 'calendar.name',
	'Client Email': 'person.email',
	'Client Name': 'person.full_name',
	Code: 'search_code',
	Key: 'appointment_key',
	Start: 'start_date',
	Status: 'status',
}).map(([name, value]) => ({ name, value, description: `The record's ${value}` }));

/** Version 4's Output and Fields, shown where the earlier versions showed Simplify. */
export function outputProperties(
	displayOptions: INodeProperties['displayOptions'],
): INodeProperties[] {
	return [
		{
			displayName: 'Output',
			name: 'output',
			type: 'options',
			default: 'simple',
			options: [...OUTPUTS],
			description: 'What each appointment in the output holds',
			displayOptions,
		},
		{
			displayName: 'Fields',
			name: 'fields',
			type: 'multiOptions',
			default: ['appointment_key', 'start_date', 'status'],
			options: FIELD_OPTIONS,
			description:
				'The fields each appointment keeps, nested as in the record; an expression may give other dot paths of the record, such as person.email',
			displayOptions: {
				...displayOptions,
				show: { ...displayOptions?.show, output: ['selectedFields'] },
			},
		},
	];
}

const PATH = /^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/;
const UNSAFE = /(^|\.)(__proto__|constructor|prototype)(\.|$)/;

function readFields(ctx: IExecuteFunctions, i: number): string[] {
	const given = ctx.getNodeParameter('fields', i, []) as unknown;
	const list =
		typeof given === 'string' ? given.split(',') : Array.isArray(given) ? given : [given];
	const paths = list.map((p) => (typeof p === 'string' ? p.trim() : p)).filter((p) => p !== '');
	const bad = paths.find((p) => typeof p !== 'string' || !PATH.test(p) || UNSAFE.test(p));
	if (paths.length === 0 || bad !== undefined) {
		const expected = 'one or more fields of the appointment, such as status or person.email';
		const fix =
			'Pick the fields from the list; an expression must give dot paths separated by commas.';
		throw withFix(inputError(ctx.getNode(), 'Fields', i, expected, bad ?? given), fix);
	}
	return paths as string[];
}

/** Read before anything is sent; `simplifyDefault`: Get Many's is on, Get's off (version 1 has no switch). */
export function readShape(
	ctx: IExecuteFunctions,
	i: number,
	simplifyDefault: boolean,
): ((record: IDataObject) => IDataObject) | undefined {
	if (ctx.getNode().typeVersion < 4) {
		return ctx.getNodeParameter('simplify', i, simplifyDefault) ? simplifyAppointment : undefined;
	}
	const output = ctx.getNodeParameter('output', i, 'simple') as unknown;
	if (output === 'simple') return simplifyAppointment;
	if (output === 'raw') return undefined;
	if (output === 'selectedFields') return fieldPicker(readFields(ctx, i));
	const names = OUTPUTS.map((o) => `${o.name} (${o.value})`).join(', ');
	const error = inputError(ctx.getNode(), 'Output', i, `one of ${names}`, output);
	throw withFix(error, 'Pick "Output" from the list.');
}
