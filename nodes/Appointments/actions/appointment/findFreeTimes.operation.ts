/**
 * Appointment > Find Free Times: the free start times of a calendar in a date range, one item each, from one read
 * of its appointments (freeTimes.ts), the range padded by how long they last and the buffer. The Date Range is
 * Get Many's, read in Options › Time Zone when set, else in the account's zone.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { calendarLocator, locatorValue } from '../../shared/calendar.js';
import type { DateRangePreset } from '../../shared/dateInput.js';
import { inputError, numberValue, requireUuid } from '../../shared/validation.js';
import { accountTimeZone } from '../../transport/http/credentialInfo.js';
import { optionsCollection, readLimit, returnAllOrLimit } from '../common.descriptions.js';
import type { ItemContext, PrepareOperation } from '../types.js';
import * as free from './freeTimes.js';
import { DATE_RANGES } from './getAll.fields.js';
import { customRangeFields } from './getAll.filters.js';
import { dateRangeWindow } from './getAll.operation.js';

/** [name, label, default, description] of the minute fields, in the editor's order. */
const MINUTES: Array<[string, string, number, string]> = [
	['duration', 'Duration (Minutes)', 30, 'How long the appointment to place lasts'],
	['startEvery', 'Start Times Every (Minutes)', 15, 'From the start of each opening range'],
	['buffer', 'Buffer (Minutes)', 0, 'Free time kept before and after every existing appointment'],
	[
		'existingDuration',
		'Existing Appointments Last (Minutes)',
		0,
		"How long each existing appointment lasts: the service's records carry a start and no end. 0: the same as Duration.",
	],
];
const [duration, ...slotFields] = MINUTES.map(
	([name, displayName, value, description]): INodeProperties => ({
		displayName,
		name,
		type: 'number',
		default: value,
		description,
		typeOptions: { minValue: value === 0 ? 0 : 1, numberPrecision: 0 },
	}),
);
const time = (displayName: string, name: string, value: string): INodeProperties => ({
	displayName,
	name,
	type: 'string',
	default: value,
	placeholder: value,
	description: "Wall clock in the account's time zone, HH:mm (To may be 24:00)",
});

export const properties: INodeProperties[] = [
	{ ...calendarLocator('calendar', 'The calendar to find free times in'), required: true },
	{
		displayName: 'Date Range',
		name: 'dateRange',
		type: 'options',
		default: 'next7Days',
		description: "Which days to search, in the account's time zone (Options › Time Zone when set)",
		options: DATE_RANGES.filter((range) => range.value !== 'all'),
	},
	...customRangeFields(),
	duration,
	{
		displayName: 'Opening Hours',
		name: 'openingHours',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: { ranges: [{ day: 'weekdays', from: '09:00', to: '17:00' }] },
		description: "In the account's time zone; several ranges for one day leave out a lunch break",
		options: [
			{
				displayName: 'Range',
				name: 'ranges',
				values: [
					{
						displayName: 'Day',
						name: 'day',
						type: 'options',
						options: free.DAY_OPTIONS,
						default: 'weekdays',
					},
					time('From', 'from', '09:00'),
					time('To', 'to', '17:00'),
				],
			},
		],
	},
	...slotFields,
	...returnAllOrLimit('free times'),
	optionsCollection(true),
];

/** The Date Range read in `zone`: both ends are needed (a Custom range with one alone is refused). */
function rangeIn(ctx: IExecuteFunctions, item: ItemContext, zone: string): free.Window {
	const preset = ctx.getNodeParameter('dateRange', item.itemIndex, '') as DateRangePreset;
	const { from, to } = dateRangeWindow(ctx, { ...item, zone: () => zone }, preset) ?? {};
	if (from !== undefined && to !== undefined) return { from, to };
	const end = from === undefined ? 'Start Date' : 'End Date';
	const [label, i] = [preset === 'custom' ? end : 'Date Range', item.itemIndex];
	throw inputError(ctx.getNode(), label, i, 'a date: Find Free Times needs both ends');
}

function readRules(ctx: IExecuteFunctions, i: number): free.SlotRules {
	const [duration, grid, buffer, existing] = MINUTES.map(([name, label, value]) => {
		const rule = { min: value === 0 ? 0 : 1, max: 1440, whole: true };
		return (
			numberValue(ctx.getNode(), ctx.getNodeParameter(name, i, value), label, i, rule) ?? value
		);
	});
	return { duration, grid, buffer, existing: existing || duration };
}

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const calendarKey = locatorValue(this.getNodeParameter('calendar', i));
	const calendar = requireUuid(this.getNode(), calendarKey, 'Calendar', i);
	rangeIn(this, item, item.zone());
	const [rules, hours, limit] = [
		readRules(this, i),
		free.readOpeningHours(this, i),
		readLimit(this, i),
	];
	return async () => {
		const account = await accountTimeZone(this);
		const zone = account ?? item.zone();
		const window = rangeIn(this, item, item.options.timeZone ? item.zone() : zone);
		const pad = (minutes: number) => (minutes + rules.buffer) * free.MINUTE;
		const read = { from: window.from - pad(rules.existing), to: window.to + pad(rules.duration) };
		const records = await free.readBusy(this, item, { calendar, window: read, zone, account });
		const { name } = (records.find((r) => r.calendar)?.calendar ?? {}) as { name?: string };
		const source = item.options.timeZone
			? "the node's Time Zone option"
			: "the workflow's time zone";
		const note = `The credential's Account Time Zone is empty: times are in ${zone}, ${source}`;
		// Never a start already past; the grid stays on each opening range's start.
		const ahead = { from: Math.max(window.from, Date.now()), to: window.to };
		const starts = free.freeStarts(
			{ window: ahead, zone, hours, rules },
			free.startsOf(records, zone),
			limit,
		);
		return starts.map((start) => ({
			...free.slotItem(start, rules.duration, zone),
			calendar: { calendar_key: calendar, ...(name !== undefined && { name }) },
			timeZone: zone,
			...(account === undefined && { timeZoneNote: note }),
		}));
	};
};
