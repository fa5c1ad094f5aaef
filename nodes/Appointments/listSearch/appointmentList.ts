import { DateTime } from 'luxon';
import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { canonicalUuid, EMAIL } from '../shared/validation.js';
import { startInstant, startWindowQuery } from '../shared/dateWindow.js';
import { accountTimeZone } from '../transport/http/credentialInfo.js';
import { apiRequest } from '../transport/http/apiRequest.js';
import { appointmentPath } from '../transport/resources/appointmentCalls.js';
import { locatorPage } from '../transport/list/paginate.js';

// An appointment code is one word with a digit, or one all-capital word; a name is neither.
const CODE = /^(?=.*\d)[A-Za-z0-9-]{4,}$|^[A-Z0-9-]{4,}$/;

/**
 * `Tue 24 Nov 10:00 · Ana Pérez · K7M2P9QX · Dr. Rojas · CONFIRMED`, the start in the workflow's time zone. The
 * editor's list cuts entries after about 55 characters: when and who come first, then the code, which tells two
 * alike apart; the long calendar name and the status after it.
 */
export function appointmentLabel(record: IDataObject, zone: string): string {
	const person = (record.person ?? {}) as IDataObject;
	const calendar = (record.calendar ?? {}) as IDataObject;
	const start = DateTime.fromISO(String(record.start_date ?? ''), { zone, locale: 'en' });
	const format =
		start.year === DateTime.now().setZone(zone).year ? 'ccc d LLL HH:mm' : 'ccc d LLL yyyy HH:mm';
	return [
		start.isValid ? start.toFormat(format) : undefined,
		person.full_name,
		record.search_code,
		calendar.name,
		record.status,
	]
		.filter((part) => typeof part === 'string' && part !== '')
		.join(' · ');
}

function listItem(record: IDataObject, zone: string): INodeListSearchItems {
	return { name: appointmentLabel(record, zone), value: String(record.appointment_key) };
}

/** The list filter a typed text maps to: an e-mail, an appointment code, else a (part of a) person's name. */
export function searchFilter(text: string): IDataObject {
	if (EMAIL.test(text)) return { email: text };
	if (CODE.test(text)) return { search_code: text };
	return { name: text };
}

type Phase = 'upcoming' | 'earlier';

/**
 * The next page of the list split at `today` (epoch ms): the upcoming phase, then the earlier one. The split goes
 * out in the account's zone, moved outward where the service could read it two ways, and each phase keeps only its
 * side of it, so no appointment shows twice; an unreadable start goes with the earlier ones.
 */
async function phasePage(
	ctx: ILoadOptionsFunctions,
	filters: IDataObject,
	token: string | undefined,
	today: number,
	account: string,
) {
	const isUpcoming = (record: IDataObject) => startInstant(record.start_date, account) >= today;
	// The pagination token: the phase and, within it, the service's `next` link.
	const [tokenPhase, ...link] = (token ?? '').split(' ');
	let phase: Phase = tokenPhase === 'earlier' ? 'earlier' : 'upcoming';
	let next: string | undefined = link.join(' ') || undefined;
	const records: IDataObject[] = [];
	for (;;) {
		const bound = phase === 'upcoming' ? { from: today } : { to: today - 1000 };
		const qs = { ...filters, ...startWindowQuery(bound, account, account) };
		const page = await locatorPage(ctx, 'appointments', qs, next);
		records.push(...page.records.filter((record) => isUpcoming(record) === (phase === 'upcoming')));
		if (page.next) return { records, token: `${phase} ${page.next}` };
		if (phase === 'earlier') return { records, token: undefined };
		phase = 'earlier';
		next = undefined;
	}
}

/**
 * Appointments for the Appointment locator, upcoming first: from today 00:00 in the workflow's time zone on, then
 * the earlier ones. Search text narrows both by the list filter it looks like (a key is read directly; a code that
 * finds nothing is tried as a name).
 */
export async function searchAppointments(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const zone = this.getTimezone();
	const text = (filter ?? '').trim();
	const key = paginationToken ? undefined : canonicalUuid(text);
	if (key !== undefined) {
		// The appointment a typed key names, as the list's only entry (none when the service does not know it).
		const response = await apiRequest(this, 'GET', appointmentPath(key), {
			resource: `Appointment ${key}`,
			allowStatus: [404],
		});
		const found = response.statusCode < 300 && response.body?.appointment_key !== undefined;
		return { results: found ? [listItem(response.body as IDataObject, zone)] : [] };
	}
	const today = DateTime.now().setZone(zone).startOf('day').toMillis();
	const account = (await accountTimeZone(this)) ?? zone;
	const filters = text === '' ? {} : searchFilter(text);
	let page = await phasePage(this, filters, paginationToken, today, account);
	if (!paginationToken && filters.search_code !== undefined && page.records.length === 0) {
		page = await phasePage(this, { name: text }, undefined, today, account);
	}
	return {
		results: page.records.map((record) => listItem(record, zone)),
		paginationToken: page.token,
	};
}
