/**
 * simplify(record): the fields a user needs from an appointment, in the record's own shape and names, so an
 * expression such as `$json.person.full_name` works with Simplify on or off:
 *   { appointment_key, search_code, status, start_date, calendar: { name }, person: { full_name, email } }
 * Fields missing from the record are left out (never invented); a non-object yields `{}`.
 */
import type { IDataObject } from 'n8n-workflow';

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function simplifyAppointment(record: unknown): IDataObject {
	if (!isObject(record)) return {};
	const out: IDataObject = {};
	for (const field of ['appointment_key', 'search_code', 'status', 'start_date']) {
		if (record[field] !== undefined) out[field] = record[field];
	}
	if (isObject(record.calendar) && record.calendar.name !== undefined) {
		out.calendar = { name: record.calendar.name };
	}
	if (isObject(record.person)) {
		const person: IDataObject = {};
		if (record.person.full_name !== undefined) person.full_name = record.person.full_name;
		if (record.person.email !== undefined) person.email = record.person.email;
		out.person = person;
	}
	return out;
}
