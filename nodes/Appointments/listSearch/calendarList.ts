import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { canonicalUuid } from '../shared/validation.js';
import { locatorPage } from '../transport/list/paginate.js';

/** How many pages of appointments are read for the list: the API lists no calendars, so this bounds the cost. */
export const CALENDAR_PAGES = 5;

function calendarOf(record: IDataObject): { key: string; name: string } | undefined {
	const calendar = record.calendar as IDataObject | undefined;
	const key = canonicalUuid(calendar?.calendar_key);
	if (key === undefined) return undefined;
	const name =
		typeof calendar?.name === 'string' && calendar.name.trim() !== '' ? calendar.name.trim() : key;
	return { key, name };
}

/**
 * Calendars for the Calendar locator: those of the appointments on the first CALENDAR_PAGES pages of the list
 * (a calendar without appointments cannot be seen: pick it By Key), by name. Search text narrows them by name;
 * a key is looked up among that calendar's appointments.
 */
export async function searchCalendars(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const text = (filter ?? '').trim();
	const key = canonicalUuid(text);
	const qs: IDataObject | undefined = key === undefined ? undefined : { calendar_key: key };
	const found = new Map<string, string>();
	let next: string | undefined;
	for (let page = 0; page < (key === undefined ? CALENDAR_PAGES : 1); page++) {
		const result = await locatorPage(this, 'appointments', qs, next);
		for (const record of result.records) {
			const calendar = calendarOf(record);
			if (calendar !== undefined && !found.has(calendar.key))
				found.set(calendar.key, calendar.name);
		}
		next = result.next;
		if (next === undefined) break;
	}
	const needle = text.toLowerCase();
	const results = [...found]
		.filter(([calendarKey, name]) =>
			key !== undefined ? calendarKey === key : name.toLowerCase().includes(needle),
		)
		.map(([calendarKey, name]) => ({ name, value: calendarKey }))
		.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
	return { results };
}
