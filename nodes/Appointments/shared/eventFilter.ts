/** The triggers' Filters: one description and one rule, applied before an execution starts, for both triggers. */
import {
	NodeOperationError,
	type IDataObject,
	type INode,
	type INodeProperties,
} from 'n8n-workflow';

import { calendarLocator, locatorValue } from './calendar.js';
import { STATUSES, STATUS_VALUES } from './constants.js';
import { canonicalUuid, isBlank, listParts } from './validation.js';

export interface EventFilter {
	/** Calendar keys; empty: every calendar. */
	calendars: ReadonlySet<string>;
	/** Status values; empty: every status. */
	statuses: ReadonlySet<string>;
}

export const eventFilterProperty: INodeProperties = {
	displayName: 'Filters',
	name: 'filters',
	type: 'collection',
	placeholder: 'Add Filter',
	default: {},
	description:
		'Only events of appointments that match start the workflow; the others start no execution at all',
	options: [
		// One calendar: the same picker, word and click count as Get Many's Calendar; Calendars for several.
		calendarLocator('calendar', 'Only appointments of this calendar; for several, use Calendars'),
		{
			displayName: 'Calendars',
			name: 'calendars',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			placeholder: 'Add Calendar',
			default: {},
			description: 'Only appointments of one of these calendars',
			options: [
				{
					displayName: 'Calendar',
					name: 'calendar',
					values: [calendarLocator('calendar', 'A calendar whose appointments start the workflow')],
				},
			],
		},
		{
			displayName: 'Statuses',
			name: 'statuses',
			type: 'multiOptions',
			options: [...STATUSES],
			default: [],
			description: 'Only appointments that have one of these statuses after the event',
		},
	],
};

/** Names the field by the editor's path (Filters › Statuses), as the triggers' errors and logs show it. */
function filterError(
	node: INode,
	field: string,
	expected: string,
	got: unknown,
	fix: string,
): NodeOperationError {
	return new NodeOperationError(
		node,
		`The field "${field}" must be ${expected} (got ${JSON.stringify(got)})`,
		{ description: fix },
	);
}

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

/**
 * A value of a shape the editor never saves is refused rather than read as "no filter", which would let every
 * event through a filter the builder set.
 */
export function readEventFilter(node: INode, value: unknown): EventFilter {
	const filters = (isEmpty(value) ? {} : value) as IDataObject;
	if (typeof filters !== 'object' || Array.isArray(filters)) {
		throw filterError(
			node,
			'Filters',
			'a collection of filters',
			value,
			'Set the Filters in the node, not with an expression.',
		);
	}
	return {
		calendars: readCalendars(node, filters),
		statuses: readStatuses(node, filters.statuses),
	};
}

function readCalendars(node: INode, filters: IDataObject): Set<string> {
	const group = isEmpty(filters.calendars) ? {} : filters.calendars;
	const rows = typeof group === 'object' ? ((group as IDataObject).calendar ?? []) : group;
	if (!Array.isArray(rows)) {
		throw filterError(
			node,
			'Filters › Calendars',
			'a list of calendars',
			rows,
			'Add each calendar with "Add Calendar".',
		);
	}
	const calendars = new Set<string>();
	const add = (label: string, locator: unknown) => {
		const raw = locatorValue(locator);
		if (isBlank(raw)) return;
		const key = canonicalUuid(raw);
		if (key === undefined) {
			throw filterError(
				node,
				label,
				'a calendar key (a UUID)',
				raw,
				'Pick the calendar from the list, or paste its calendar_key, such as 5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d.',
			);
		}
		calendars.add(key.toLowerCase());
	};
	add('Filters › Calendar', filters.calendar);
	for (const row of rows) add('Filters › Calendars', (row as IDataObject)?.calendar);
	return calendars;
}

function readStatuses(node: INode, picked: unknown): Set<string> {
	const list = isBlank(picked) ? [] : listParts(picked, /,/);
	if (list === undefined) {
		throw filterError(
			node,
			'Filters › Statuses',
			'a list of statuses',
			picked,
			'Pick the statuses from the list; an expression must give a list of their values, such as ["CONFIRMED"].',
		);
	}
	const statuses = new Set<string>();
	for (const status of list) {
		const text = typeof status === 'string' ? status.trim().toUpperCase() : status;
		if (typeof text !== 'string' || !STATUS_VALUES.includes(text)) {
			throw filterError(
				node,
				'Filters › Statuses',
				`statuses from the list (${STATUSES.map((s) => s.name).join(', ')})`,
				status,
				`Pick the statuses from the list; an expression must give their values, such as CONFIRMED.`,
			);
		}
		statuses.add(text);
	}
	return statuses;
}

/**
 * Whether the appointment passes. A field the data does not carry (a notification for an appointment the service
 * has removed holds only its key) is not held against it: an event is never lost for what cannot be seen.
 */
export function matches(filter: EventFilter, data: IDataObject): boolean {
	if (filter.calendars.size > 0) {
		const key = canonicalUuid((data.calendar as IDataObject | undefined)?.calendar_key);
		if (key !== undefined && !filter.calendars.has(key.toLowerCase())) return false;
	}
	if (filter.statuses.size > 0 && typeof data.status === 'string') {
		if (!filter.statuses.has(data.status.toUpperCase())) return false;
	}
	return true;
}
