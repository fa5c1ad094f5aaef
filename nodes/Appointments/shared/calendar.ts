/**
 * The Calendar resource locator (Get Many's filter in version 3 and both triggers' filters) and its reader. The
 * API lists no calendars, so *From list* offers those seen in the account's appointments (listSearch/calendarList.ts).
 */
import type { INodeProperties } from 'n8n-workflow';

import { UUID_OPTIONAL_HYPHENS } from './constants';

export function calendarLocator(name: string, description: string): INodeProperties {
	return {
		displayName: 'Calendar',
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a calendar...',
				typeOptions: { searchListMethod: 'searchCalendars', searchable: true },
			},
			{
				displayName: 'By Key',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
				hint: 'The calendar_key of the calendar, as appointments show it under calendar',
				validation: [
					{
						type: 'regex',
						properties: {
							regex: UUID_OPTIONAL_HYPHENS,
							errorMessage: 'Not a calendar key: expected a UUID such as 5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
						},
					},
				],
			},
		],
	};
}

/** The key a Calendar field holds: a locator's value, or a plain text (version 2's field, an expression). */
export function locatorValue(value: unknown): unknown {
	if (value !== null && typeof value === 'object' && 'value' in value) return (value as { value: unknown }).value;
	return value;
}
