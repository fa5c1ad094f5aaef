/**
 * The Polling Trigger's Filters (calendars, statuses) in n8n-core's real PollTriggerExecutor against the sandbox:
 * changes whose appointment does not match are dropped before the poll emits, and a poll left with none emits
 * nothing (n8n starts no execution); "Fetch test event" shows a matching appointment.
 */
import { DateTime } from 'luxon';

import type { PollingHarness } from '../helpers/polling';
import { usePollingSandbox, type Json } from './common';

const ZONE = 'America/Santiago';

const sb = usePollingSandbox({ seed: 61, seedValue: 5, pageSize: 9, timeZone: ZONE });
const { admin, api } = sb;

const rl = (value: string) => ({ __rl: true, mode: 'list', value });

const harness = (filters: Json): PollingHarness =>
	sb.harness({
		events: ['appointment.created', 'appointment.updated', 'appointment.canceled'],
		filters,
		options: {},
	});

function inDays(days: number): string {
	return DateTime.now()
		.setZone(ZONE)
		.plus({ days })
		.set({ hour: 10, minute: 0, second: 0, millisecond: 0 })
		.toISO()!;
}

async function calendarKeys(): Promise<string[]> {
	const all: Json = await admin('GET', '/__sandbox/appointments/');
	return [...new Set<string>(all.appointments.map((a: Json) => a.calendar.calendar_key))];
}

const create = async (calendar_key: string, status = 'CONFIRMED') =>
	await admin('POST', '/__sandbox/appointments/', {
		start_date: inDays(2),
		status,
		calendar: { calendar_key },
	});

describe('Polling Trigger Filters', () => {
	test('only changes of the picked calendars are emitted; a poll with none left starts nothing', async () => {
		const [wanted, other] = await calendarKeys();
		const h = harness({ calendars: { calendar: [{ calendar: rl(wanted) }] } });
		await h.activate();
		const mine = await create(wanted);
		await create(other);
		const first = await h.poll();
		expect(first.error).toBeUndefined();
		expect(
			first.items!.map((i) => `${(i.json as Json).event} ${(i.json as Json).data.appointment_key}`),
		).toEqual([`appointment.created ${mine.appointment_key}`]);
		// Only the other calendar changes: the poll emits nothing, so n8n starts no execution.
		await create(other);
		expect(await h.poll()).toEqual({});
	});

	test('Statuses keep the changes whose appointment now has a picked status; Fetch test event shows a match', async () => {
		const [wanted] = await calendarKeys();
		const h = harness({ statuses: ['NO_SHOW'] });
		await h.activate();
		const a = await create(wanted, 'PENDING');
		const b = await create(wanted, 'PENDING');
		expect(await h.poll()).toEqual({});
		await api('PATCH', `appointments/${a.appointment_key}/`, { status: 'ATTENDED' });
		await api('PATCH', `appointments/${b.appointment_key}/`, { status: 'NO_SHOW' });
		const { items } = await h.poll();
		expect(
			items!.map((i) => `${(i.json as Json).event} ${(i.json as Json).data.appointment_key}`),
		).toEqual([`appointment.updated ${b.appointment_key}`]);
		const sample = await h.manual();
		expect((sample![0].json as Json).data.status).toBe('NO_SHOW');
	});

	test('Statuses match the appointment after the change: leaving a picked status starts nothing, entering one gives Status Changed with the status before', async () => {
		const [wanted] = await calendarKeys();
		const a = await create(wanted, 'CONFIRMED');
		const h = sb.harness({
			events: ['appointment.status_changed', 'appointment.updated'],
			filters: { statuses: ['CONFIRMED'] },
			options: {},
		});
		await h.activate();
		await api('PATCH', `appointments/${a.appointment_key}/`, { status: 'PENDING' });
		expect(await h.poll()).toEqual({});
		await api('PATCH', `appointments/${a.appointment_key}/`, { status: 'CONFIRMED' });
		const { items } = await h.poll();
		expect(
			items!.map((i) => `${(i.json as Json).event} ${(i.json as Json).previous.status}`),
		).toEqual(['appointment.status_changed PENDING', 'appointment.updated PENDING']);
	});

	test('a status that is not one fails the poll naming the filter as the editor labels it', async () => {
		const h = harness({ statuses: ['DONE'] });
		const error = (await h.activate().then(
			() => undefined,
			(e: unknown) => e,
		)) as Error & { description?: string };
		expect(error.message).toMatch(
			/^The field "Filters › Statuses" must be statuses from the list \(Attended, Canceled, .*\) \(got "DONE"\)$/,
		);
		expect(error.description).toMatch(/Pick the statuses from the list/);
	});

	test('an option out of range is named as the editor labels it, with how to fix it', async () => {
		const h = sb.harness({ events: ['appointment.created'], options: { daysBack: '={{ 40 }}' } });
		const error = (await h.activate().then(
			() => undefined,
			(e: unknown) => e,
		)) as Error & { description?: string };
		expect(error.message).toBe(
			'The option "Days Back" must be a whole number from 0 to 31 (got 40)',
		);
		expect(error.description).toBe(
			'Set "Days Back" under Options to a whole number from 0 to 31, or remove it to use 1.',
		);
	});

	test('no event picked: the trigger names Events without an item and says what to pick', async () => {
		const h = sb.harness({ events: [], options: {} });
		const error = (await h.activate().then(
			() => undefined,
			(e: unknown) => e,
		)) as Error & { description?: string };
		expect(error.message).toBe('The field "Events" must be at least one event');
		expect(error.description).toBe(
			'Pick at least one event in Events, such as Appointment Created.',
		);
	});
});
