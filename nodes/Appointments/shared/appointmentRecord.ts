/** What the nodes take as an appointment, and when it is cancelled: one rule each, for the polling trigger, the
 * reminders and Cancel alike. */
import type { IDataObject } from 'n8n-workflow';

/**
 * Why the value is not an appointment (the one asked for, when `key` is given), or undefined when it is one. The
 * least an answer must hold: what the triggers compare (key, status, start) and what Cancel decides on. Anything
 * else (a proxy's page, `{}`, another appointment) is never read as one. The reason names fields, never values.
 */
export function notAppointmentReason(value: unknown, key?: string): string | undefined {
	if (value === null || typeof value !== 'object' || Array.isArray(value))
		return 'not a JSON object';
	const record = value as IDataObject;
	const own = record.appointment_key;
	if (typeof own !== 'string' || own === '') return 'no appointment_key';
	if (key !== undefined && own.toLowerCase() !== key.toLowerCase())
		return 'the appointment_key of another appointment';
	if (typeof record.status !== 'string') return 'no status';
	if (typeof record.start_date !== 'string' || Number.isNaN(Date.parse(record.start_date)))
		return 'no readable start_date';
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
