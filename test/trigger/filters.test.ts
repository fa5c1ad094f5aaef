/**
 * The trigger's Filters (calendars, statuses) over real HTTPS from the sandbox: a notification whose appointment
 * does not match starts no execution and is still answered 200 (the service does not resend it); one that
 * matches starts the workflow as before. A filter that could never match fails activation, naming the field.
 */
import type { INodeProperties } from 'n8n-workflow';

import { AppointmentsTrigger } from '../../nodes/Appointments/AppointmentsTrigger.node';
import {
	admin,
	api,
	harness,
	post,
	reset,
	settledDeliveries,
	startsOf,
	useSandbox,
	envelope,
	type Json,
} from './common';

const ctx = useSandbox();

beforeEach(async () => {
	await reset(ctx);
});

const rl = (value: string, mode = 'list') => ({ __rl: true, mode, value });

async function calendars(): Promise<Array<{ calendar_key: string; name: string }>> {
	const all: Json = await admin(ctx, 'GET', '/__sandbox/appointments/');
	const seen = new Map<string, string>();
	for (const a of all.appointments) seen.set(a.calendar.calendar_key, a.calendar.name);
	return [...seen].map(([calendar_key, name]) => ({ calendar_key, name }));
}

describe('Filters', () => {
	it('an event of another calendar starts no execution and the service gets 200; its own calendar starts one', async () => {
		const [wanted, other] = await calendars();
		const h = await harness(ctx, {
			parameters: {
				events: ['appointment.created'],
				otherEvents: '',
				filters: { calendars: { calendar: [{ calendar: rl(wanted.calendar_key) }] } },
				options: {},
			},
		});
		await h.activate();
		const mine = await admin(ctx, 'POST', '/__sandbox/appointments/', {
			calendar: { calendar_key: wanted.calendar_key },
		});
		const theirs = await admin(ctx, 'POST', '/__sandbox/appointments/', {
			calendar: { calendar_key: other.calendar_key },
		});
		const delivered = await settledDeliveries(ctx, h.productionUrl, 2);
		expect(delivered.map((d) => d.status)).toEqual([200, 200]);
		expect(startsOf(h).map((j) => j.data.appointment_key)).toEqual([mine.appointment_key]);
		expect(h.starts).toHaveLength(1);
		expect(h.responses.filter((r) => r.status === 200)).toHaveLength(2);
		expect(h.logs().some((l) => l.includes('does not match the Filters'))).toBe(true);
	});

	it('Statuses: only a change to a picked status starts the workflow; By Key picks a calendar too', async () => {
		const [wanted] = await calendars();
		const h = await harness(ctx, {
			parameters: {
				events: ['appointment.updated'],
				otherEvents: '',
				filters: {
					calendars: { calendar: [{ calendar: rl(wanted.calendar_key.toUpperCase(), 'id') }] },
					statuses: ['NO_SHOW'],
				},
				options: { simplify: true },
			},
		});
		await h.activate();
		const a = await admin(ctx, 'POST', '/__sandbox/appointments/', {
			status: 'PENDING',
			calendar: { calendar_key: wanted.calendar_key },
		});
		const b = await admin(ctx, 'POST', '/__sandbox/appointments/', {
			status: 'PENDING',
			calendar: { calendar_key: wanted.calendar_key },
		});
		expect(
			(await api(ctx, 'PATCH', `appointments/${a.appointment_key}/`, { status: 'ATTENDED' }))
				.status,
		).toBeLessThan(300);
		expect(
			(await api(ctx, 'PATCH', `appointments/${b.appointment_key}/`, { status: 'NO_SHOW' })).status,
		).toBeLessThan(300);
		// two created (not subscribed) and two updated deliveries, all acknowledged
		const delivered = await settledDeliveries(ctx, h.productionUrl, 2);
		expect(delivered.every((d) => d.ok)).toBe(true);
		expect(startsOf(h).map((j) => `${j.appointment_key} ${j.status}`)).toEqual([
			`${b.appointment_key} NO_SHOW`,
		]);
	});

	it('a posted notification that is filtered out is answered 200 with started: false', async () => {
		const h = await harness(ctx, {
			parameters: {
				events: ['appointment.created'],
				otherEvents: '',
				filters: { statuses: ['CONFIRMED'] },
				options: {},
			},
		});
		await h.activate();
		const out = await post(h.productionUrl, JSON.stringify(envelope({}, { status: 'PENDING' })));
		expect(out).toEqual({
			status: 200,
			body: { received: true, started: false, reason: 'filtered out' },
		});
		const kept = await post(h.productionUrl, JSON.stringify(envelope({}, { status: 'CONFIRMED' })));
		expect(kept.status).toBe(200);
		expect(h.starts).toHaveLength(1);
		expect(startsOf(h)[0].data.status).toBe('CONFIRMED');
	});

	it('with Verify With API the current record decides, not the notification', async () => {
		const h = await harness(ctx, {
			parameters: {
				events: ['appointment.updated'],
				otherEvents: '',
				filters: { statuses: ['CONFIRMED'] },
				options: { verifyWithApi: true },
			},
		});
		await h.activate();
		const confirmed = await admin(ctx, 'POST', '/__sandbox/appointments/', { status: 'CONFIRMED' });
		const attended = await admin(ctx, 'POST', '/__sandbox/appointments/', { status: 'ATTENDED' });
		// Stale notifications: each claims the other status.
		const stale = (a: Json, status: string) =>
			JSON.stringify(
				envelope(
					{ event: 'appointment.updated' },
					{ ...a, appointment_key: a.appointment_key, status },
				),
			);
		expect(await post(h.productionUrl, stale(attended, 'CONFIRMED'))).toEqual({
			status: 200,
			body: { received: true, started: false, reason: 'filtered out' },
		});
		expect((await post(h.productionUrl, stale(confirmed, 'PENDING'))).status).toBe(200);
		expect(startsOf(h).map((j) => `${j.data.appointment_key} ${j.data.status}`)).toEqual([
			`${confirmed.appointment_key} CONFIRMED`,
		]);
	});

	it('a calendar key that is not one fails activation naming the field, with how to fix it', async () => {
		const h = await harness(ctx, {
			parameters: {
				events: ['appointment.created'],
				otherEvents: '',
				filters: { calendars: { calendar: [{ calendar: rl('dr-ruiz', 'id') }] } },
				options: {},
			},
		});
		const error = (await h.activate().then(
			() => undefined,
			(e: unknown) => e,
		)) as Error & { description?: string };
		expect(error?.message).toBe(
			'The field "Filters › Calendars" must be a calendar key (a UUID) (got "dr-ruiz")',
		);
		expect(error.description).toMatch(/Pick the calendar from the list/);
	});
});

describe('Filters › Calendar: one calendar, picked as in Get Many', () => {
	it('is offered beside Calendars with the same picker; only its appointments start the workflow', async () => {
		const options = new AppointmentsTrigger().description.properties.find(
			(p) => p.name === 'filters',
		)!.options as INodeProperties[];
		expect(options.map((o) => o.displayName)).toEqual(['Calendar', 'Calendars', 'Statuses']);
		const calendar = options.find((o) => o.name === 'calendar')!;
		expect(calendar).toMatchObject({
			displayName: 'Calendar',
			type: 'resourceLocator',
			default: { mode: 'list', value: '' },
		});
		expect(calendar.modes!.map((m) => m.typeOptions?.searchListMethod ?? m.name)).toEqual([
			'searchCalendars',
			'id',
		]);
		const [wanted, other] = await calendars();
		const h = await harness(ctx, {
			parameters: {
				events: ['appointment.created'],
				otherEvents: '',
				filters: { calendar: rl(wanted.calendar_key) },
				options: {},
			},
		});
		await h.activate();
		const mine = await admin(ctx, 'POST', '/__sandbox/appointments/', {
			calendar: { calendar_key: wanted.calendar_key },
		});
		await admin(ctx, 'POST', '/__sandbox/appointments/', {
			calendar: { calendar_key: other.calendar_key },
		});
		await settledDeliveries(ctx, h.productionUrl, 2);
		expect(startsOf(h).map((j) => j.data.appointment_key)).toEqual([mine.appointment_key]);
	});
});
