/**
 * simplify(record): the fields a user needs from an appointment, in the record's own shape and names, so an
 * expression such as `$json.person.full_name` works with Simplify on or off:
 *   { appointment_key, search_code, status, start_date, calendar: { calendar_key, name }, person: { full_name, email } }
 * calendar_key is kept so a simplified item can feed the next node's Calendar Key filter. Fields missing from
 * the record are left out (never invented); a non-object yields `{}`.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function simplifyAppointment(record: unknown): IDataObject {
	if (!isObject(record)) return {};
	const out: IDataObject = {};
	for (const field of ['appointment_key', 'search_code', 'status', 'start_date']) {
		if (record[field] !== undefined) out[field] = record[field];
	}
	if (isObject(record.calendar)) {
		const calendar: IDataObject = {};
		if (record.calendar.calendar_key !== undefined) calendar.calendar_key = record.calendar.calendar_key;
		if (record.calendar.name !== undefined) calendar.name = record.calendar.name;
		if (Object.keys(calendar).length > 0) out.calendar = calendar;
	}
	if (isObject(record.person)) {
		const person: IDataObject = {};
		if (record.person.full_name !== undefined) person.full_name = record.person.full_name;
		if (record.person.email !== undefined) person.email = record.person.email;
		out.person = person;
	}
	return out;
}

/** An event as a trigger delivers it: the webhook's envelope (with any fields the service adds) or a poll's. */
export type DeliveredEvent = IDataObject & { event: string; timestamp: string; data: IDataObject };

/**
 * A trigger item, one shape for both triggers: the event as delivered, or with Simplify the appointment's
 * simplified fields beside the event's name and time (and `previous`, the polling trigger's values before a change).
 */
export function triggerItem(delivered: DeliveredEvent, simplify: boolean, previous?: IDataObject): INodeExecutionData {
	if (!simplify) return { json: delivered };
	const { event, timestamp, data } = delivered;
	return { json: { ...simplifyAppointment(data), event, timestamp, ...(previous === undefined ? {} : { previous }) } };
}
