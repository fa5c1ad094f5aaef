/**
 * The example workflows (examples/*.json) as a builder imports them: what every example must have (sticky notes,
 * the credentials `npm run dev` imports, an email at the end), the emails of the trigger examples 8 to 11 built by
 * n8n's expression engine from their trigger's items, and examples 1, 2, 3 and 5 run whole in n8n-core's
 * WorkflowExecute against the sandbox, with n8n's expression engine building the emails they send (a stand-in
 * records each email: n8n-nodes-base is not installed here; test/e2e runs every example in a real n8n).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { AppointmentsPollingTrigger } from '../../nodes/Appointments/AppointmentsPollingTrigger.node';
import { runExample, type ExampleJson, type ExampleRun } from '../helpers/exampleRun';
import { runOk, TOKEN, useSandbox, ZONE, type Admin, type Sandbox } from './helpers';

const DIR = path.join(__dirname, '../../examples');
const examples: Record<string, ExampleJson> = Object.fromEntries(
	fs
		.readdirSync(DIR)
		.filter((f) => /^\d+-.*\.json$/.test(f))
		.map((f) => [f, JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')) as ExampleJson]),
);
const byPrefix = (p: string) => Object.entries(examples).find(([f]) => f.startsWith(p))![1];
const TEAM = 'front-desk@example.com';

let sb: Sandbox;
let admin: Admin;

useSandbox({ seed: 120, seedValue: 21 }, (started) => ({ sb, admin } = started));

beforeEach(async () => {
	await admin.reset();
});

async function run(prefix: string): Promise<ExampleRun> {
	const r = await runExample(byPrefix(prefix), {
		credentials: { baseUrl: sb.url, accessToken: TOKEN },
		timezone: ZONE,
	});
	if (r.error) throw r.error;
	return r;
}

const local = (iso: unknown) => DateTime.fromISO(String(iso), { setZone: true }).setZone(ZONE);
const person = (a: IDataObject) => a.person as IDataObject;
/** A status as the agenda email writes it: PENDING_PAYMENT → Pending payment. */
const readable = (status: unknown) =>
	String(status).charAt(0) + String(status).slice(1).toLowerCase().replaceAll('_', ' ');

describe('every example', () => {
	test.each(Object.keys(examples))(
		'%s: sticky notes, the shared credentials, and every branch ends in an email',
		(file) => {
			const ex = examples[file];
			const notes = ex.nodes
				.filter((n) => n.type === 'n8n-nodes-base.stickyNote')
				.map((n) => String(n.parameters.content));
			expect(notes.length).toBeGreaterThanOrEqual(2);
			expect(notes.some((c) => /^## /.test(c))).toBe(true); // what it does
			expect(
				notes.some((c) => /before you use it for real/i.test(c) && /credential/i.test(c)),
			).toBe(true);
			// Builder-facing words (the filter's internal name isCancelled aside): "canceled", "email", nothing to replace.
			expect(JSON.stringify(ex).replaceAll('"isCancelled"', '')).not.toMatch(
				/REPLACE_WITH|cancelled|e-mail/i,
			);

			const working = ex.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote');
			const byName = (name: string) => working.find((n) => n.name === name)!;
			for (const n of working.filter((x) => x.type.startsWith('n8n-nodes-appointments.'))) {
				expect(n.credentials).toEqual({
					appointmentsApi: { id: 'apptsApiCred01', name: 'Appointments API' },
				});
				// Version 2, or 4 where the example needs an operation only 4 offers (Find Free Times).
				if (n.type === 'n8n-nodes-appointments.appointments')
					expect(n.typeVersion).toBe(file.startsWith('12-') ? 4 : 2);
			}
			const connections = ex.connections as Record<
				string,
				{ main: Array<Array<{ node: string }>> }
			>;
			// A branch ends where its outputs lead nowhere, or only back to the Loop Over Items it came from.
			const after = (from: string, seen = new Set<string>()): Set<string> => {
				for (const o of connections[from]?.main ?? [])
					for (const c of o) if (!seen.has(c.node)) after(c.node, seen.add(c.node));
				return seen;
			};
			const backToLoop = (from: string, to: string) =>
				byName(to).type === 'n8n-nodes-base.splitInBatches' && after(to).has(from);
			const leaves = working.filter(
				(n) =>
					!(connections[n.name]?.main ?? []).some((o) =>
						o.some((c) => !backToLoop(n.name, c.node)),
					),
			);
			expect(leaves.length).toBeGreaterThan(0);
			// The subject says which example sent it (examples 3 and 4 both email the front desk "Canceled: …").
			const number = file.split('-')[0];
			for (const leaf of leaves) {
				expect(String(leaf.parameters.subject)).toMatch(
					new RegExp(`^=?\\[Example ${number}\\] \\S`),
				);
				expect(leaf).toMatchObject({
					type: 'n8n-nodes-base.emailSend',
					typeVersion: 2.1,
					credentials: { smtp: { id: 'mailSinkSmtp001', name: 'Local mail sink' } },
					parameters: { fromEmail: 'bookings@example.com', emailFormat: 'text' },
				});
			}
			// Every node is reachable from the trigger (nothing left dangling in the canvas).
			const reached = new Set<string>();
			const visit = (name: string) => {
				if (reached.has(name)) return;
				reached.add(name);
				for (const o of connections[name]?.main ?? []) for (const c of o) visit(c.node);
			};
			for (const n of working.filter((x) => /trigger/i.test(x.type))) visit(n.name);
			expect([...reached].sort()).toEqual(working.map((n) => n.name).sort());
		},
	);
});

describe('1 morning agenda', () => {
	test('runs every day at 07:00 and needs no calendar to be typed in', () => {
		const ex = byPrefix('1-');
		const schedule = ex.nodes.find((n) => n.type === 'n8n-nodes-base.scheduleTrigger')!;
		expect(schedule.parameters).toEqual({ rule: { interval: [{ triggerAtHour: 7 }] } });
		expect(ex.nodes.filter((n) => n.type === 'n8n-nodes-base.manualTrigger')).toEqual([]);
		const getMany = ex.nodes.find((n) => n.type === 'n8n-nodes-appointments.appointments')!;
		expect(getMany.parameters).toMatchObject({
			operation: 'getAll',
			dateRange: 'today',
			returnAll: true,
		});
		expect(getMany.parameters.filters).not.toHaveProperty('calendarKey');
	});

	test("one email to the front desk listing today's appointments that are not canceled, earliest first", async () => {
		const today = DateTime.now().setZone(ZONE).toFormat('yyyy-MM-dd');
		const all = await admin.appointments();
		const expected = all
			.filter(
				(a) =>
					local(a.start_date).toFormat('yyyy-MM-dd') === today &&
					!String(a.status).startsWith('CANCELED'),
			)
			.sort((a, b) => local(a.start_date).toMillis() - local(b.start_date).toMillis());
		expect(expected.length).toBeGreaterThan(1);
		expect(
			all.some(
				(a) =>
					local(a.start_date).toFormat('yyyy-MM-dd') === today &&
					String(a.status).startsWith('CANCELED'),
			),
		).toBe(true);

		const { emails } = await run('1-');
		expect(emails).toHaveLength(1);
		const [email] = emails;
		expect(email).toMatchObject({ fromEmail: 'bookings@example.com', toEmail: TEAM });
		expect(email.subject).toBe(
			`[Example 1] Today's appointments: ${expected.length} (${DateTime.now().setZone(ZONE).toFormat('cccc d LLLL')})`,
		);
		const lines = email.text.split('\n').filter((l) => /^\d\d:\d\d /.test(l));
		expect(lines).toEqual(
			expected.map(
				(a) =>
					`${local(a.start_date).toFormat('HH:mm')}  ${person(a).full_name} · ${(a.calendar as IDataObject).name} · ${readable(a.status)} · ${a.search_code}`,
			),
		);
	});

	test('a day without appointments still gets its email, saying so', async () => {
		await admin.reset({ seed: 0 });
		expect(await admin.appointments()).toEqual([]);
		const { emails } = await run('1-');
		expect(emails).toHaveLength(1);
		expect(emails[0].subject).toMatch(/^\[Example 1\] Today's appointments: 0 /);
		expect(emails[0].text).toContain('No appointments today.');
	});
});

test("2 mark no-shows: yesterday's CONFIRMED become NO_SHOW, and one email lists them", async () => {
	const yesterday = DateTime.now().setZone(ZONE).minus({ days: 1 }).toFormat('yyyy-MM-dd');
	const before = (await admin.appointments()).filter(
		(a) => a.status === 'CONFIRMED' && local(a.start_date).toFormat('yyyy-MM-dd') === yesterday,
	);
	expect(before.length).toBeGreaterThan(0);
	const r = await run('2-');
	const marked = r.output('Mark as No-Show');
	expect(marked.map((a) => a.appointment_key).sort()).toEqual(
		before.map((a) => a.appointment_key).sort(),
	);
	for (const a of before)
		expect((await admin.appointment(String(a.appointment_key))).status).toBe('NO_SHOW');
	expect(r.emails).toHaveLength(1);
	expect(r.emails[0]).toMatchObject({
		toEmail: TEAM,
		subject: `[Example 2] No-shows yesterday: ${before.length}`,
	});
	for (const a of before)
		expect(r.emails[0].text).toContain(`${person(a).full_name} <${person(a).email}>`);
});

test('3 reschedule and cancel: the client gets the new time, the front desk the cancellation, the service its email', async () => {
	const r = await run('3-');
	const [first] = r.output('Next Confirmed Tomorrow');
	const [moved] = r.output('Move One Day Later');
	const newStart = local(first.start_date).plus({ days: 1 });
	expect(local(moved.start_date).toMillis()).toBe(newStart.toMillis());
	expect(
		local((await admin.appointment(String(first.appointment_key))).start_date).toMillis(),
	).toBe(newStart.toMillis());

	const [pending] = r.output('Next Pending This Week');
	expect(pending.status).toBe('PENDING');
	expect(String((await admin.appointment(String(pending.appointment_key))).status)).toMatch(
		/^CANCELED/,
	);
	expect((await admin.emails()).map((e) => e.appointment_key)).toEqual([pending.appointment_key]);

	expect(r.emails).toEqual([
		expect.objectContaining({
			toEmail: person(first).email,
			subject: `[Example 3] Your appointment has moved to ${newStart.toFormat('ccc d LLL, HH:mm')}`,
			text: expect.stringContaining(`${first.search_code}`),
		}),
		expect.objectContaining({
			toEmail: TEAM,
			subject: `[Example 3] Canceled: ${person(pending).full_name}, ${local(pending.start_date).toFormat('ccc d LLL, HH:mm')}`,
			text: expect.stringContaining(
				`Appointment ${pending.search_code} of ${person(pending).full_name}`,
			),
		}),
	]);
});

test('5 webhook housekeeping: create, list, update, delete, then an email with the list', async () => {
	const r = await run('5-');
	const [created] = r.output('Create Demo Subscription');
	expect(created).toMatchObject({ events: ['appointment.created'] });
	expect(r.output('List Subscriptions').map((w) => w.webhook_key)).toContain(created.webhook_key);
	expect(r.output('Also Listen to Cancellations')).toEqual([
		expect.objectContaining({
			webhook_key: created.webhook_key,
			events: ['appointment.created', 'appointment.canceled'],
		}),
	]);
	expect(r.output('Delete Demo Subscription')).toEqual([
		{ deleted: true, webhook_key: created.webhook_key },
	]);
	expect(await admin.webhooks()).toHaveLength(0);
	expect(r.emails).toHaveLength(1);
	expect(r.emails[0].subject).toBe('[Example 5] Webhook subscriptions: 1');
	expect(r.emails[0].text).toContain(
		`${String(created.url)}  appointment.created  (${String(created.webhook_key)})`,
	);
});

const appointmentNodes = (prefix: string) =>
	byPrefix(prefix).nodes.filter((n) => n.type === 'n8n-nodes-appointments.appointments');

test('9 no-show follow-up: Get reads the appointment of a started item, Update Status marks a still CONFIRMED one NO_SHOW', async () => {
	const [get, update] = appointmentNodes('9-');
	expect([get, update].map((n) => n.parameters.operation)).toEqual(['get', 'updateStatus']);
	const a = (await admin.appointments()).find((x) => x.status === 'CONFIRMED')!;
	// The polling trigger's item (after the Wait node, unchanged): { event, timestamp, data }.
	const startedItem = {
		event: 'appointment.started',
		timestamp: new Date().toISOString(),
		data: a,
	};
	const [read] = await runOk(sb, get.parameters as IDataObject, { input: [startedItem] });
	expect(read.appointment_key).toBe(a.appointment_key);
	expect(read.status).toBe('CONFIRMED');
	const [marked] = await runOk(sb, update.parameters as IDataObject, { input: [read] });
	expect(marked).toMatchObject({ appointment_key: a.appointment_key, status: 'NO_SHOW' });
	expect((await admin.appointment(String(a.appointment_key))).status).toBe('NO_SHOW');
	// The email node reads the record Update Status returns.
	expect(marked).toHaveProperty('person.email');
	expect(marked).toHaveProperty('calendar.name');
});

/** The Send Email node of an example with its parameters as n8n's expression engine resolves them for `item`. */
function emailFor(prefix: string, item: IDataObject, timezone: string): (name: string) => unknown {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { Workflow } = require('n8n-workflow') as typeof import('n8n-workflow');
	const email = byPrefix(prefix).nodes.find((n) => n.type === 'n8n-nodes-base.emailSend')!;
	const parameters = structuredClone(email.parameters) as IDataObject;
	const noTypes = { description: { properties: [], inputs: ['main'], outputs: ['main'] } };
	const workflow = new Workflow({
		nodes: [structuredClone(email) as never],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => noTypes,
			getByNameAndVersion: () => noTypes,
			getKnownTypes: () => ({}),
		} as never,
		settings: { timezone },
	});
	return (name) =>
		workflow.expression.getParameterValue(
			parameters[name] as string,
			null,
			0,
			0,
			email.name,
			[{ json: item }],
			'manual',
			{},
		);
}

const pollingTrigger = (prefix: string) =>
	byPrefix(prefix).nodes.find(
		(n) => n.type === 'n8n-nodes-appointments.appointmentsPollingTrigger',
	)!;

describe('10 tell the client their appointment moved', () => {
	test('the polling trigger on Appointment Rescheduled only', () => {
		expect(pollingTrigger('10-').parameters).toEqual({
			pollTimes: { item: [{ mode: 'everyMinute' }] },
			events: ['appointment.rescheduled'],
			options: {},
		});
	});

	test("the client gets the old and the new time, in the workflow's zone: 'Tue 24 Nov, 10:00 → Thu 26 Nov, 15:00'", async () => {
		const a = (await admin.appointments())[0];
		const at = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toISO()!;
		// The polling trigger's item (its contract): the appointment now, and its start and status before.
		const item = {
			event: 'appointment.rescheduled',
			timestamp: new Date().toISOString(),
			data: { ...a, start_date: at('2026-11-26T15:00') },
			previous: { start_date: at('2026-11-24T10:00'), status: a.status },
		};
		// A workflow zone other than the offsets' still writes both in its own zone: the same clock for both.
		for (const [zone, moved] of [
			[ZONE, 'Tue 24 Nov, 10:00 → Thu 26 Nov, 15:00'],
			['Europe/Madrid', 'Tue 24 Nov, 14:00 → Thu 26 Nov, 19:00'],
		]) {
			const value = emailFor('10-', item, zone);
			expect(value('toEmail')).toBe(person(a).email);
			expect(value('subject')).toBe(
				`[Example 10] Your appointment has moved to ${moved.split(' → ')[1]}`,
			);
			expect(value('text')).toContain(`\n\n${moved}\n\n`);
			expect(value('text')).toContain(String(person(a).full_name));
			expect(value('text')).toContain(String(a.search_code));
		}
	});
});

describe('11 thank the client after an attended appointment', () => {
	test('the polling trigger on Appointment Status Changed, filtered to Attended', () => {
		expect(pollingTrigger('11-').parameters).toEqual({
			pollTimes: { item: [{ mode: 'everyMinute' }] },
			events: ['appointment.status_changed'],
			filters: { statuses: ['ATTENDED'] },
			options: {},
		});
	});

	test('the client gets a thank-you naming the day and the calendar', async () => {
		const a = (await admin.appointments())[0];
		const item = {
			event: 'appointment.status_changed',
			timestamp: new Date().toISOString(),
			data: { ...a, status: 'ATTENDED' },
			previous: { start_date: a.start_date, status: 'CONFIRMED' },
		};
		const value = emailFor('11-', item, ZONE);
		expect(value('toEmail')).toBe(person(a).email);
		expect(value('subject')).toBe(`[Example 11] Thank you for coming, ${person(a).full_name}`);
		expect(value('text')).toContain(
			`at ${(a.calendar as IDataObject).name} on ${local(a.start_date).toFormat('cccc d LLLL')}.`,
		);
	});
});

describe('12 move a no-show to the next free time', () => {
	const ex = () => byPrefix('12-');
	const node = (name: string) => ex().nodes.find((n) => n.name === name)!;

	test('a no-show, one at a time: the first free time from now, moved there only if still free', () => {
		expect(pollingTrigger('12-').parameters).toEqual({
			pollTimes: { item: [{ mode: 'everyMinute' }] },
			events: ['appointment.status_changed'],
			filters: { statuses: ['NO_SHOW'] },
			options: { daysBack: 2 }, // example 2 marks yesterday's at 06:00
		});
		expect(node('One at a Time')).toMatchObject({
			type: 'n8n-nodes-base.splitInBatches',
			parameters: { options: {} }, // a batch of 1
		});
		const [find, move] = [node('Next Free Time'), node('Move There If Still Free')];
		// Without a free time the loop still goes on to the next no-show (and the front desk hears of it).
		expect(find.alwaysOutputData).toBe(true);
		expect(find.parameters).toMatchObject({
			operation: 'findFreeTimes',
			dateRange: 'custom',
			startDate: '={{ $now.toISO() }}',
			limit: 1,
		});
		expect(find.parameters).not.toHaveProperty('returnAll');
		expect(move.parameters).toMatchObject({
			operation: 'reschedule',
			startDate: '={{ $json.start }}',
			onlyIfFree: true,
			whenTaken: 'output',
			duration: find.parameters.duration,
		});
	});

	test("Next Free Time, as the example sets it, gives the no-show's calendar's first free time after now", async () => {
		await admin.reset({ seed: 0 });
		const calendar = { calendar_key: '0b7a5a52-3a5c-4d0e-9a51-6c1f0f6b2f11', name: 'Dr. Free' };
		const now = DateTime.now().setZone(ZONE);
		const missed = await admin.create({
			start_date: now.minus({ days: 1 }).toISO(),
			status: 'NO_SHOW',
			calendar,
		});
		// Every opening slot (weekdays 09:00-17:00) taken from today to the next weekday, but that day's 11:30.
		const next = [1, 2, 3].map((d) => now.plus({ days: d })).find((d) => d.weekday <= 5)!;
		const hole = next.set({ hour: 11, minute: 30, second: 0, millisecond: 0 });
		for (const d of [now, next])
			for (let m = 0; m < 8 * 60; m += 30) {
				// From 09:00 on the wall clock: a clock change happens at night.
				const start = d.set({ hour: 9, minute: 0, second: 0, millisecond: 0 }).plus({ minutes: m });
				if (start.toMillis() !== hole.toMillis())
					await admin.create({ start_date: start.toISO(), calendar });
			}
		const item = { event: 'appointment.status_changed', data: missed, previous: {} };
		const free = await runOk(sb, node('Next Free Time').parameters as IDataObject, {
			input: [item],
			version: 4,
		});
		expect(free).toEqual([
			expect.objectContaining({ calendar: expect.objectContaining(calendar) }),
		]);
		expect(free[0]).toMatchObject({
			when: hole.setLocale('en').toFormat('ccc d LLL, HH:mm–12:00'),
		});
		expect(Date.parse(String(free[0].start))).toBe(hole.toMillis());
	});
});

test('10, 11 and 12 listen to events the polling trigger offers', () => {
	const offered = (
		new AppointmentsPollingTrigger().description.properties.find((p) => p.name === 'events')!
			.options ?? []
	).map((o) => (o as { value: string }).value);
	for (const prefix of ['10-', '11-', '12-'])
		for (const event of pollingTrigger(prefix).parameters.events as string[])
			expect(offered).toContain(event);
});

test("8 and 9: the emails go to the client and give the start in words, in the calendar's time (n8n's expression engine)", async () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { Workflow } = require('n8n-workflow') as typeof import('n8n-workflow');
	const a = (await admin.appointments())[0];
	const inWords = DateTime.fromISO(String(a.start_date), { setZone: true }).toFormat(
		"cccc d LLLL 'at' HH:mm",
	);
	for (const [prefix, item] of [
		['8-', { event: 'appointment.starting_soon', timestamp: new Date().toISOString(), data: a }],
		['9-', a], // after Update Status: the record
	] as const) {
		const email = byPrefix(prefix).nodes.find((n) => n.type === 'n8n-nodes-base.emailSend')!;
		const parameters = structuredClone(email.parameters) as IDataObject;
		const noTypes = { description: { properties: [], inputs: ['main'], outputs: ['main'] } };
		const workflow = new Workflow({
			nodes: [structuredClone(email) as never],
			connections: {},
			active: false,
			nodeTypes: {
				getByName: () => noTypes,
				getByNameAndVersion: () => noTypes,
				getKnownTypes: () => ({}),
			} as never,
			settings: { timezone: 'Europe/Lisbon' },
		});
		const value = (name: string) =>
			workflow.expression.getParameterValue(
				parameters[name] as string,
				null,
				0,
				0,
				email.name,
				[{ json: item as IDataObject }],
				'manual',
				{},
			);
		expect(value('toEmail')).toBe(person(a).email);
		expect(`${value('subject')}\n${value('text')}`).toContain(
			prefix === '8-' ? `on ${inWords}` : String((a.calendar as IDataObject).name),
		);
		expect(value('text')).toContain(String(person(a).full_name));
		expect(value('text')).toContain(inWords);
	}
});
