/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- test code, never shipped: made-up keys */
/**
 * The one rule for what is an appointment and when it is cancelled (shared/appointmentRecord.ts), used by the
 * polling trigger, the reminders and Cancel; their own tests show it at work against a service.
 */
import {
	isCancelled,
	notAppointmentReason,
} from '../../nodes/Appointments/shared/appointmentRecord.js';

const RECORD = {
	appointment_key: '3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e',
	status: 'CONFIRMED',
	start_date: '2026-03-10T10:00:00-03:00',
};

test('an appointment: a JSON object with a key (the one asked for, in any case), a status and a readable start', () => {
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
		[{ ...RECORD, status: null }, undefined, 'no status'],
		[{ ...RECORD, start_date: 'next Tuesday' }, undefined, 'no readable start_date'],
		[{ ...RECORD, start_date: undefined }, undefined, 'no readable start_date'],
	];
	for (const [value, key, why] of cases) expect(notAppointmentReason(value, key)).toBe(why);
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
