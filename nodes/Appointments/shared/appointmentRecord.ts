/** What the nodes take as an appointment, and when it is cancelled: one rule each, for the polling trigger, the
 * reminders and Cancel alike. */
import type { IDataObject } from 'n8n-workflow';

/**
 * Why the value is not an appointment (the one asked for, when `key` is given), or undefined when it is one: a
 * proxy's page, `{}` or another appointment is never read as one. The reason names fields, never values.
 */
export function notAppointmentReason(value: unknown, key?: string): string | undefined {
	if (value === null || typeof value !== 'object' || Array.isArray(value))
		return 'not a JSON object';
	const own = (value as IDataObject).appointment_key;
	if (typeof own !== 'string' || own === '') return 'no appointment_key';
	if (key !== undefined && own.toLowerCase() !== key.toLowerCase())
		return 'the appointment_key of another appointment';
	return undefined;
}

const kind = (v: unknown) => (v === undefined ? 'missing' : v === null ? 'null' : `a ${typeof v}`);

/** What makes an appointment's record unusable, or undefined: the triggers compare, and Cancel decides on, a text
 * `status` and a readable `start_date`. */
export function unreadableReason(record: IDataObject): string | undefined {
	const { status, start_date: start } = record;
	if (typeof status !== 'string') return `its status is ${kind(status)}`;
	if (typeof start !== 'string') return `its start_date is ${kind(start)}`;
	if (Number.isNaN(Date.parse(start))) return 'its start_date is not a date';
	return undefined;
}

/**
 * Every cancelled status the spec names starts with CANCEL, so a variant the service adds later (CANCELED_ADMIN,
 * CANCELLED_…) counts as cancelled too; `is_cancelled`, where the record carries it, says so outright.
 */
export function isCancelled(record: { status?: unknown; is_cancelled?: unknown }): boolean {
	return (
		record.is_cancelled === true ||
		(typeof record.status === 'string' && /^CANCEL/i.test(record.status))
	);
}
