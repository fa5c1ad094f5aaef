/**
 * Input validation: every check runs before any request and fails with a NodeOperationError that names the
 * field, the item and what was expected.
 *
 *   inputError(node, field, itemIndex, expected, got?): NodeOperationError   ("(got …)" only when got is passed;
 *                                         its description says how to fix it; withFix(error, text) for a better one)
 *   requireUuid(node, value, field, itemIndex): string
 *   uuidList(node, value, field, itemIndex): string[]         array, or a string separated by commas/whitespace
 *   requireStatus(node, value, field, itemIndex): string       one of STATUS_VALUES (any case; sent upper case)
 *   requireEmail(node, value, field, itemIndex): string
 *   requireText(node, value, field, itemIndex): string         non-empty, trimmed
 *   requirePathKey(node, value, field, itemIndex): string      requireText that can be one path segment (no /, not . or ..)
 *   toBoolean(node, value, field, itemIndex): boolean          true/false, also "true"/"false" from expressions
 *   resolveZone(node, option, workflowZone, itemIndex): string  IANA zone of the Options, else the workflow's
 *   instantValue(node, value, field, itemIndex, zone, bound?): number  a window bound (dateInput.ts toInstant)
 *   offsetIsoValue(node, value, field, itemIndex, zone): string
 *   eventList(node, events, otherEvents, itemIndex): string[]  the picked events plus typed ones, at least one
 *   numberValue(node, value, field, itemIndex, {min, max?, whole?}): number | undefined
 */
import { NodeOperationError, type INode } from 'n8n-workflow';

import { STATUSES, STATUS_VALUES } from './constants';
import { DateInputError, isValidTimeZone, toInstant, toOffsetIso } from './dateInput';
import { shown } from './format';

export const MAX_CONCURRENCY = 20;

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

/** The error with a more precise fix-it description than inputError's. */
export function withFix(error: NodeOperationError, description: string): NodeOperationError {
	error.description = description;
	return error;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_HEX = /^[0-9a-f]{32}$/i;

/** The canonical (hyphenated) form of a UUID given with or without hyphens, trimmed; undefined if it is none. */
export function canonicalUuid(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (UUID.test(text)) return text;
	if (UUID_HEX.test(text)) {
		return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
	}
	return undefined;
}

const UUID_EXPECTED = 'a UUID such as 3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e';

export function requireUuid(node: INode, value: unknown, field: string, itemIndex: number): string {
	const uuid = canonicalUuid(value);
	if (uuid === undefined) throw inputError(node, field, itemIndex, UUID_EXPECTED, value);
	return uuid;
}

export function uuidList(node: INode, value: unknown, field: string, itemIndex: number): string[] {
	let parts: unknown[];
	if (Array.isArray(value)) parts = value;
	else if (typeof value === 'string') parts = value.split(/[\s,;]+/);
	else if (value === undefined || value === null) parts = [];
	else
		throw inputError(
			node,
			field,
			itemIndex,
			`a list of UUIDs (an array or comma-separated text)`,
			value,
		);
	const keys: string[] = [];
	for (const part of parts) {
		if (typeof part === 'string' && part.trim() === '') continue;
		const key = canonicalUuid(part);
		if (key === undefined) {
			throw inputError(
				node,
				field,
				itemIndex,
				`a list of UUIDs (an array or comma-separated text); ${shown(part)} is not a UUID`,
			);
		}
		if (!keys.includes(key)) keys.push(key);
	}
	return keys;
}

export function requireStatus(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): string {
	const text = typeof value === 'string' ? value.trim().toUpperCase() : value;
	if (typeof text !== 'string' || !STATUS_VALUES.includes(text)) {
		const names = STATUSES.map((status) => status.name).join(', ');
		throw withFix(
			inputError(node, field, itemIndex, `one of ${names}`, value),
			`Pick "${field}" from the list; an expression must give the status's value: ${STATUSES.map((status) => `${status.value} (${status.name})`).join(', ')}.`,
		);
	}
	return text;
}

export function requireEmail(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): string {
	const text = typeof value === 'string' ? value.trim() : '';
	if (!/^[^\s@]+@[^\s@]+$/.test(text)) {
		throw inputError(node, field, itemIndex, 'an email address such as ana@example.com', value);
	}
	return text;
}

export function requireText(node: INode, value: unknown, field: string, itemIndex: number): string {
	const text =
		typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
	if (text === '') throw inputError(node, field, itemIndex, 'a non-empty text', value);
	return text;
}

/**
 * A key used as one path segment (it is percent-encoded): refused when it could still change the path, i.e. it
 * contains `/` (some proxies decode `%2F`) or is `.` or `..`.
 */
export function requirePathKey(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): string {
	const text = requireText(node, value, field, itemIndex);
	if (text.includes('/') || text === '.' || text === '..') {
		throw inputError(node, field, itemIndex, 'a key without "/" that is not "." or ".."', value);
	}
	return text;
}

export function toBoolean(node: INode, value: unknown, field: string, itemIndex: number): boolean {
	if (typeof value === 'boolean') return value;
	if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) {
		return value.trim().toLowerCase() === 'true';
	}
	throw inputError(node, field, itemIndex, 'true or false', value);
}

export function resolveZone(
	node: INode,
	option: unknown,
	workflowZone: string,
	itemIndex: number,
): string {
	if (
		option === undefined ||
		option === null ||
		(typeof option === 'string' && option.trim() === '')
	) {
		return workflowZone;
	}
	if (!isValidTimeZone(option)) {
		throw withFix(
			inputError(node, 'Time Zone', itemIndex, 'an IANA time zone such as America/Santiago or Europe/Berlin', option),
			"Leave Time Zone empty to use the workflow's time zone, or type a name from the IANA list such as Europe/Berlin.",
		);
	}
	return (option as string).trim();
}

function dateError(node: INode, error: unknown, field: string, itemIndex: number): never {
	if (error instanceof DateInputError) {
		throw new NodeOperationError(node, `The field "${field}" (item ${itemIndex}): ${error.message}`, {
			itemIndex,
			description: `Pick a date in "${field}", or give it a date such as 2026-03-10 or 2026-03-10T14:30:00 (an expression may also give a Luxon DateTime).`,
		});
	}
	throw error;
}

export function instantValue(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
	zone: string,
	bound: 'start' | 'end' = 'start',
): number {
	try {
		return toInstant(value, zone, bound);
	} catch (error) {
		return dateError(node, error, field, itemIndex);
	}
}

export function offsetIsoValue(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
	zone: string,
): string {
	try {
		return toOffsetIso(value, zone);
	} catch (error) {
		return dateError(node, error, field, itemIndex);
	}
}

const EVENT_NAME = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+$/;

export function eventList(
	node: INode,
	events: unknown,
	otherEvents: unknown,
	itemIndex: number,
): string[] {
	const out: string[] = [];
	for (const [field, value, separators] of [
		['Events', events, /,/],
		['Other Events', otherEvents, /[\s,;]+/],
	] as const) {
		// A value that is neither a list nor a text (an expression giving a number) is refused, not read as none.
		if (value !== undefined && value !== null && typeof value !== 'string' && !Array.isArray(value)) {
			throw inputError(node, field, itemIndex, 'a list of event names', value);
		}
		const list: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(separators) : [];
		for (const raw of list) {
			const name = typeof raw === 'string' ? raw.trim() : raw;
			if (name === '') continue;
			if (typeof name !== 'string' || !EVENT_NAME.test(name)) {
				throw withFix(
					inputError(node, field, itemIndex, 'event names such as appointment.created (words joined by dots)', raw),
					'Pick events from the Events list; in Other Events or an expression, write names such as appointment.rescheduled, separated by commas.',
				);
			}
			if (!out.includes(name)) out.push(name);
		}
	}
	if (out.length === 0) {
		throw withFix(
			inputError(node, 'Events', itemIndex, otherEvents === undefined ? 'at least one event' : 'at least one event (pick one or type it in Other Events)'),
			'Pick at least one event in Events, such as Appointment Created.',
		);
	}
	return out;
}

/**
 * A number field or option: undefined when left empty, else a number inside the bounds (a whole one when
 * `whole`), from a number or a numeric text (expressions); the one parser of the node's number inputs.
 */
export function numberValue(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
	rule: { min: number; max?: number; whole?: boolean },
): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (
		typeof n !== 'number' ||
		!Number.isFinite(n) ||
		(rule.whole && !Number.isInteger(n)) ||
		n < rule.min ||
		(rule.max !== undefined && n > rule.max)
	) {
		const kind = rule.whole ? 'a whole number' : 'a number';
		const range = rule.max !== undefined ? `from ${rule.min} to ${rule.max}` : `of at least ${rule.min}`;
		throw inputError(node, field, itemIndex, `${kind} ${range}`, value);
	}
	return n;
}
