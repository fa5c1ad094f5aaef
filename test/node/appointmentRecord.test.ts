/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- test code, never shipped: made-up keys */
/**
 * The one rule for what is an appointment and when it is cancelled (shared/appointmentRecord.ts), used by the
 * polling trigger, the reminders and Cancel; their own tests show it at work against a service.
 */
import {
	isCancelled,
	notAppointmentReason,
	unreadableReason,
} from '../../nodes/Appointments/shared/appointmentRecord.js';

const RECORD = {
	appointment_key: '3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e',
	status: 'CONFIRMED',
	start_date: '2026-03-10T10:00:00-03:00',
};

test('an appointment: a JSON object with a key (the one asked for, in any case)', () => {
	expect(notAppointmentReason(RECORD)).toBeUndefined();
	expect(notAppointmentReason(RECORD, RECORD.appointment_key.toUpperCase())).toBeUndefined();
	expect(notAppointmentReason({ ...RECORD, status: 'WAITING_LIST', extra: 1 })).toBeUndefined();
	const cases: Array<[unknown, string | undefined, string]> = [
		['<html></html>', undefined, 'not a JSON object'],
		[[RECORD], undefined, 'not a JSON object'],
		[null, undefined, 'not a JSON object'],
		[{}, undefined, 'no appointment_key'],
		[{ ...RECORD, appointment_key: '' }, undefined, 'no appointment_key'],
		[{ ...RECORD, appointment_key: 7 }, undefined, 'no appointment_key'],
		[RECORD, 'another-key', 'the appointment_key of another appointment'],
	];
	for (const [value, key, why] of cases) expect(notAppointmentReason(value, key)).toBe(why);
	expect(notAppointmentReason({ ...RECORD, status: null }, RECORD.appointment_key)).toBeUndefined();
});

test('a usable record: a text status and a readable start_date; else what is wrong, by field', () => {
	expect(unreadableReason(RECORD)).toBeUndefined();
	expect(unreadableReason({ ...RECORD, status: 'WAITING_LIST' })).toBeUndefined();
	const cases: Array<[object, string]> = [
		[{ ...RECORD, status: null }, 'its status is null'],
		[{ ...RECORD, status: undefined }, 'its status is missing'],
		[{ ...RECORD, status: 3 }, 'its status is a number'],
		[{ ...RECORD, start_date: 'next Tuesday' }, 'its start_date is not a date'],
		[{ ...RECORD, start_date: undefined }, 'its start_date is missing'],
		[{ ...RECORD, start_date: null }, 'its start_date is null'],
	];
	for (const [record, why] of cases) expect(unreadableReason(record as never)).toBe(why);
});

test('cancelled: is_cancelled true, or a status starting with CANCEL in any case', () => {
	for (const status of [
		'CANCELED',
		'CANCELED_CLIENT',
		'CANCELED_GOOGLE',
		'CANCELED_ADMIN',
		'Cancelled',
		'cancelled_by_staff',
	]) {
		expect(isCancelled({ status })).toBe(true);
	}
	for (const status of ['CONFIRMED', 'PENDING', 'NO_SHOW', '', undefined, 3])
		expect(isCancelled({ status })).toBe(false);
	expect(isCancelled({ status: 'CONFIRMED', is_cancelled: true })).toBe(true);
	expect(isCancelled({ status: 'CONFIRMED', is_cancelled: 'true' })).toBe(false);
});
