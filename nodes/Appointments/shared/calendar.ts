/**
 * The resource locators (From List, By Key) of the nodes: Appointment and Webhook (version 2 on), Calendar (Get
 * Many's filter from version 3 on and both triggers'). The API lists no calendars, so *From list* offers those seen
 * in the account's appointments (listSearch/calendarList.ts).
 */
import type { INodeProperties } from 'n8n-workflow';

/** By Key's pattern: a UUID (hyphens optional; the node sends them) or nothing, left to n8n's "is required". */
const UUID_OPTIONAL_HYPHENS =
	'^\\s*(?:[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12})?\\s*$';

/** notUuid: the By Key error for a value that is no UUID; without it any text is accepted. */
type KeyLocator = {
	displayName: string;
	name: string;
	description: string;
	listMethod: string;
	listPlaceholder: string;
	idPlaceholder: string;
	hint: string;
	notUuid?: string;
};

export function keyLocator(l: KeyLocator): INodeProperties {
	const validation = l.notUuid && [
		{
			type: 'regex' as const,
			properties: { regex: UUID_OPTIONAL_HYPHENS, errorMessage: l.notUuid },
		},
	];
	return {
		displayName: l.displayName,
		name: l.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		description: l.description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: l.listPlaceholder,
				typeOptions: { searchListMethod: l.listMethod, searchable: true },
			},
			{
				displayName: 'By Key',
				name: 'id',
				type: 'string',
				placeholder: l.idPlaceholder,
				hint: l.hint,
				...(validation && { validation }),
			},
		],
	};
}

export function calendarLocator(name: string, description: string): INodeProperties {
	return keyLocator({
		displayName: 'Calendar',
		name,
		description,
		listMethod: 'searchCalendars',
		listPlaceholder: 'Select a calendar...',
		idPlaceholder: 'e.g. 5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
		hint: 'The calendar_key of the calendar, as appointments show it under calendar',
		notUuid: 'Not a calendar key: expected a UUID such as 5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
	});
}

/** The key a Calendar field holds: a locator's value, or a plain text (version 2's field, an expression). */
export function locatorValue(value: unknown): unknown {
	if (value !== null && typeof value === 'object' && 'value' in value)
		return (value as { value: unknown }).value;
	return value;
}
