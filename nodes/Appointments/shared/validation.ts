/** Input checks: each runs before any request and throws a NodeOperationError naming the field, the item and what was expected. */
import { NodeOperationError, type INode, type INodePropertyOptions } from 'n8n-workflow';

import { STATUSES, STATUS_VALUES } from './constants.js';
import { DateInputError, isValidTimeZone } from './dateInput.js';
import { shown } from './format.js';

/** "(got …)" only when `got` is passed; the description says how to fix it (withFix for a more precise one). */
export function inputError(
	node: INode,
	field: string,
	itemIndex: number,
	expected: string,
	...got: unknown[]
): NodeOperationError {
	const gotText = got.length > 0 ? ` (got ${shown(got[0])})` : '';
	return new NodeOperationError(
		node,
		`The field "${field}" (item ${itemIndex}) must be ${expected}${gotText}`,
		{
			itemIndex,
			description: `Change "${field}" in the node, or the expression that fills it for item ${itemIndex}, so that it is ${expected}.`,
		},
	);
}

export function withFix(error: NodeOperationError, description: string): NodeOperationError {
	error.description = description;
	return error;
}

const UUID = /^([0-9a-f]{8})(-?)([0-9a-f]{4})\2([0-9a-f]{4})\2([0-9a-f]{4})\2([0-9a-f]{12})$/i;

/** The canonical (hyphenated) form of a UUID given with or without hyphens, trimmed; undefined if it is none. */
export function canonicalUuid(value: unknown): string | undefined {
	const match = typeof value === 'string' ? UUID.exec(value.trim()) : null;
	return match ? [1, 3, 4, 5, 6].map((group) => match[group]).join('-') : undefined;
}

export const UUID_EXPECTED = 'a UUID such as 3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e';

export function requireUuid(node: INode, value: unknown, field: string, itemIndex: number): string {
	const uuid = canonicalUuid(value);
	if (uuid === undefined) throw inputError(node, field, itemIndex, UUID_EXPECTED, value);
	return uuid;
}

/** An array, or a text split at `separators`, or none (undefined, null); any other value is refused: undefined. */
export function listParts(value: unknown, separators: RegExp): unknown[] | undefined {
	if (Array.isArray(value)) return value;
	if (typeof value === 'string') return value.split(separators);
	return value === undefined || value === null ? [] : undefined;
}

export function uuidList(node: INode, value: unknown, field: string, itemIndex: number): string[] {
	const expected = 'a list of UUIDs (an array or comma-separated text)';
	const parts = listParts(value, /[\s,;]+/);
	if (parts === undefined) throw inputError(node, field, itemIndex, expected, value);
	const keys: string[] = [];
	for (const part of parts) {
		if (typeof part === 'string' && part.trim() === '') continue;
		const key = canonicalUuid(part);
		if (key === undefined)
			throw inputError(node, field, itemIndex, `${expected}; ${shown(part)} is not a UUID`);
		if (!keys.includes(key)) keys.push(key);
	}
	return keys;
}

/** A value that is none of a list's choices: named as the editor shows them, the fix gives their values. */
export function choiceError(
	node: INode,
	field: string,
	i: number,
	choices: readonly INodePropertyOptions[],
	value: unknown,
	whose: string,
) {
	const names = choices.map((choice) => choice.name).join(', ');
	const values = choices.map((choice) => `${choice.value} (${choice.name})`).join(', ');
	const fix = `Pick "${field}" from the list; an expression must give ${whose}: ${values}.`;
	return withFix(inputError(node, field, i, `one of ${names}`, value), fix);
}

export function requireStatus(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): string {
	const text = typeof value === 'string' ? value.trim().toUpperCase() : value;
	if (typeof text === 'string' && STATUS_VALUES.includes(text)) return text;
	throw choiceError(node, field, itemIndex, STATUSES, value, "the status's value");
}

export const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function requireEmail(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): string {
	const text = typeof value === 'string' ? value.trim() : '';
	if (EMAIL.test(text)) return text;
	throw inputError(node, field, itemIndex, 'an email address such as ana@example.com', value);
}

/**
 * A non-empty key used as one path segment (it is percent-encoded): refused when it could still change the path,
 * i.e. it contains `/` (some proxies decode `%2F`) or is `.` or `..`.
 */
export function requirePathKey(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): string {
	const text =
		typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
	if (text === '') throw inputError(node, field, itemIndex, 'a non-empty text', value);
	if (text.includes('/') || text === '.' || text === '..') {
		throw inputError(node, field, itemIndex, 'a key without "/" that is not "." or ".."', value);
	}
	return text;
}

export function toBoolean(node: INode, value: unknown, field: string, itemIndex: number): boolean {
	if (typeof value === 'boolean') return value;
	const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
	if (text === 'true' || text === 'false') return text === 'true';
	throw inputError(node, field, itemIndex, 'true or false', value);
}

export const isBlank = (value: unknown): boolean =>
	value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

export function resolveZone(
	node: INode,
	option: unknown,
	workflowZone: string,
	itemIndex: number,
): string {
	if (isBlank(option)) return workflowZone;
	if (isValidTimeZone(option)) return (option as string).trim();
	throw withFix(
		inputError(
			node,
			'Time Zone',
			itemIndex,
			'an IANA time zone such as America/Santiago or Europe/Berlin',
			option,
		),
		"Leave Time Zone empty to use the workflow's time zone, or type a name from the IANA list such as Europe/Berlin.",
	);
}

function dateError(node: INode, error: unknown, field: string, itemIndex: number): never {
	if (!(error instanceof DateInputError)) throw error;
	throw new NodeOperationError(node, `The field "${field}" (item ${itemIndex}): ${error.message}`, {
		itemIndex,
		description: `Pick a date in "${field}", or give it a date such as 2026-03-10 or 2026-03-10T14:30:00 (an expression may also give a Luxon DateTime).`,
	});
}

/** `read()` (a dateInput.ts reading), its DateInputError turned into an error naming the field and the item. */
export function dateField<T>(node: INode, field: string, itemIndex: number, read: () => T): T {
	try {
		return read();
	} catch (error) {
		return dateError(node, error, field, itemIndex);
	}
}

const EVENT_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+$/;

function addEventNames(
	node: INode,
	field: string,
	value: unknown,
	separators: RegExp,
	itemIndex: number,
	out: string[],
): void {
	const list = listParts(value, separators);
	if (list === undefined) throw inputError(node, field, itemIndex, 'a list of event names', value);
	for (const raw of list) {
		const name = typeof raw === 'string' ? raw.trim() : raw;
		if (name === '') continue;
		if (typeof name !== 'string' || !EVENT_NAME.test(name)) {
			throw withFix(
				inputError(
					node,
					field,
					itemIndex,
					'event names such as appointment.created (words joined by dots)',
					raw,
				),
				'Pick events from the Events list; in Other Events or an expression, write names such as appointment.rescheduled, separated by commas.',
			);
		}
		if (!out.includes(name)) out.push(name);
	}
}

export function eventList(
	node: INode,
	events: unknown,
	otherEvents: unknown,
	itemIndex: number,
): string[] {
	const out: string[] = [];
	addEventNames(node, 'Events', events, /,/, itemIndex, out);
	addEventNames(node, 'Other Events', otherEvents, /[\s,;]+/, itemIndex, out);
	if (out.length > 0) return out;
	const expected =
		otherEvents === undefined
			? 'at least one event'
			: 'at least one event (pick one or type it in Other Events)';
	throw withFix(
		inputError(node, 'Events', itemIndex, expected),
		'Pick at least one event in Events, such as Appointment Created.',
	);
}

/** A number field or option (undefined when empty), from a number or a numeric text: the one parser of them. */
export function numberValue(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
	rule: { min: number; max?: number; whole?: boolean },
): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	const inRange =
		typeof n === 'number' &&
		Number.isFinite(n) &&
		n >= rule.min &&
		(rule.max === undefined || n <= rule.max);
	if (inRange && (!rule.whole || Number.isInteger(n))) return n;
	const kind = rule.whole ? 'a whole number' : 'a number';
	const range =
		rule.max !== undefined ? `from ${rule.min} to ${rule.max}` : `of at least ${rule.min}`;
	throw inputError(node, field, itemIndex, `${kind} ${range}`, value);
}
