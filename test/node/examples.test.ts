/**
 * The Appointments nodes of examples/*.json, with their saved parameters, run through the node against the
 * sandbox, each fed what the node before it would give: the examples keep working as the node changes.
 * (The real-n8n run of whole workflows is the e2e suite.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import example1 from '../../examples/1-daily-report.json';
import example2 from '../../examples/2-mark-no-shows.json';
import example3 from '../../examples/3-reschedule-and-cancel.json';
import example5 from '../../examples/5-webhook-housekeeping.json';
import example9 from '../../examples/9-no-show-follow-up.json';
import { runOk, useSandbox, ZONE, type Admin, type Sandbox } from './helpers';

interface ExampleNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: IDataObject;
}

const examples: Record<string, { nodes: ExampleNode[] }> = {
	'1-': example1,
	'2-': example2,
	'3-': example3,
	'5-': example5,
	'9-': example9,
};

function nodesOf(prefix: string): ExampleNode[] {
	const nodes = examples[prefix].nodes.filter((n) => n.type === 'n8n-nodes-appointments.appointments');
	// The examples show what a builder gets today: version 2 (test/e2e runs a saved version-1 workflow).
	for (const node of nodes) expect(node.typeVersion).toBe(2);
	return nodes;
}

let sb: Sandbox;
let admin: Admin;

useSandbox({ seed: 120, seedValue: 21 }, (started) => ({ sb, admin } = started));

beforeEach(async () => {
	await admin.reset();
});

const localDay = (iso: unknown) =>
	DateTime.fromISO(String(iso), { setZone: true }).setZone(ZONE).toFormat('yyyy-MM-dd');

test('1 daily report: today, CONFIRMED, one calendar', async () => {
	const [getMany] = nodesOf('1-');
	const all = await admin.appointments();
	const today = DateTime.now().setZone(ZONE).toFormat('yyyy-MM-dd');
	const calendarKey = String(
		(
			all.find((a) => a.status === 'CONFIRMED' && localDay(a.start_date) === today)!
				.calendar as IDataObject
		).calendar_key,
	);
	const out = await runOk(sb, getMany.parameters, { input: [{ calendarKey }] });
	const expected = all.filter(
		(a) =>
			a.status === 'CONFIRMED' &&
			localDay(a.start_date) === today &&
			(a.calendar as IDataObject).calendar_key === calendarKey,
	);
	expect(out.map((a) => a.appointment_key).sort()).toEqual(
		expected.map((a) => a.appointment_key).sort(),
	);
	// The example's Code node reads these fields.
	for (const a of out) expect(a).toHaveProperty('person.full_name');
});

test('2 mark no-shows: yesterday CONFIRMED, then NO_SHOW with concurrency 5', async () => {
	const [getMany, update] = nodesOf('2-');
	const found = await runOk(sb, getMany.parameters);
	expect(found.length).toBeGreaterThan(0);
	const updated = await runOk(sb, update.parameters, { input: found });
	expect(updated.map((a) => a.appointment_key)).toEqual(found.map((a) => a.appointment_key));
	expect(updated.every((a) => a.status === 'NO_SHOW')).toBe(true);
	for (const a of found)
		expect((await admin.appointment(String(a.appointment_key))).status).toBe('NO_SHOW');
});

test('3 reschedule one day later and cancel with e-mail', async () => {
	const [tomorrow, reschedule, next7, cancel] = nodesOf('3-');
	expect([tomorrow, reschedule, next7, cancel].map((n) => n.parameters.operation)).toEqual([
		'getAll',
		'reschedule',
		'getAll',
		'cancel',
	]);
	const [first] = await runOk(sb, tomorrow.parameters);
	const [moved] = await runOk(sb, reschedule.parameters, { input: [first] });
	expect(DateTime.fromISO(String(moved.start_date)).toMillis()).toBe(
		DateTime.fromISO(String(first.start_date), { setZone: true }).plus({ days: 1 }).toMillis(),
	);
	const [pending] = await runOk(sb, next7.parameters);
	expect(pending.status).toBe('PENDING');
	const [cancelled] = await runOk(sb, cancel.parameters, { input: [pending] });
	expect(cancelled.appointment_key).toBe(pending.appointment_key);
	expect((await admin.emails()).map((e) => e.appointment_key)).toEqual([pending.appointment_key]);
});

test('5 webhook housekeeping: create, list, update, delete', async () => {
	const [create, list, update, del] = nodesOf('5-');
	const [created] = await runOk(sb, create.parameters);
	expect(created).toMatchObject({ events: ['appointment.created'] });
	const listed = await runOk(sb, list.parameters);
	expect(listed.map((w) => w.webhook_key)).toContain(created.webhook_key);
	// The saved expression reads the key from the "Create Demo Subscription" node; here it comes as input.
	expect(update.parameters.webhookKey).toMatchObject({ mode: 'id', value: expect.stringContaining('webhook_key') });
	const byInput = (p: IDataObject) => ({
		...p,
		webhookKey: { __rl: true, mode: 'id', value: '={{ $json.webhook_key }}' },
	});
	const [updated] = await runOk(sb, byInput(update.parameters), { input: [created] });
	expect(updated.events).toEqual(['appointment.created', 'appointment.canceled']);
	const [deleted] = await runOk(sb, byInput(del.parameters), { input: [created] });
	expect(deleted).toEqual({ deleted: true, webhook_key: created.webhook_key });
	expect(await admin.webhooks()).toHaveLength(0);
});

test('9 no-show follow-up: Get reads the appointment of a started item, Update Status marks a still CONFIRMED one NO_SHOW', async () => {
	const [get, update] = nodesOf('9-');
	expect([get, update].map((n) => n.parameters.operation)).toEqual(['get', 'updateStatus']);
	const a = (await admin.appointments()).find((x) => x.status === 'CONFIRMED')!;
	// The polling trigger's item (after the Wait node, unchanged): { event, timestamp, data }.
	const startedItem = { event: 'appointment.started', timestamp: new Date().toISOString(), data: a };
	const [read] = await runOk(sb, get.parameters, { input: [startedItem] });
	expect(read.appointment_key).toBe(a.appointment_key);
	expect(read.status).toBe('CONFIRMED');
	const [marked] = await runOk(sb, update.parameters, { input: [read] });
	expect(marked).toMatchObject({ appointment_key: a.appointment_key, status: 'NO_SHOW' });
	expect((await admin.appointment(String(a.appointment_key))).status).toBe('NO_SHOW');
	// The email node reads the record Update Status returns.
	expect(marked).toHaveProperty('person.email');
	expect(marked).toHaveProperty('calendar.name');
});

test('8 and 9: the emails go to the client and give the start in words, in the calendar\'s time (n8n\'s expression engine)', async () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { Workflow } = require('n8n-workflow') as typeof import('n8n-workflow');
	const a = (await admin.appointments())[0];
	const inWords = DateTime.fromISO(String(a.start_date), { setZone: true }).toFormat("cccc d LLLL 'at' HH:mm");
	const person = a.person as IDataObject;
	for (const [file, item] of [
		['8-remind-24-hours-before.json', { event: 'appointment.starting_soon', timestamp: new Date().toISOString(), data: a }],
		['9-no-show-follow-up.json', a], // after Update Status: the record
	] as const) {
		const example = JSON.parse(readFileSync(join(__dirname, '../../examples', file), 'utf8'));
		const email = example.nodes.find((n: ExampleNode) => n.type === 'n8n-nodes-base.emailSend');
		expect(email).toMatchObject({ typeVersion: 2.1, credentials: { smtp: { id: 'mailSinkSmtp001', name: 'Local mail sink' } } });
		expect(email.parameters.fromEmail).toBe('bookings@example.com');
		const parameters = structuredClone(email.parameters);
		const noTypes = { description: { properties: [], inputs: ['main'], outputs: ['main'] } };
		const workflow = new Workflow({
			nodes: [structuredClone(email)],
			connections: {},
			active: false,
			nodeTypes: { getByName: () => noTypes, getByNameAndVersion: () => noTypes, getKnownTypes: () => ({}) } as never,
			settings: { timezone: 'Europe/Lisbon' },
		});
		const value = (name: string) =>
			workflow.expression.getParameterValue(parameters[name], null, 0, 0, email.name, [{ json: item as IDataObject }], 'manual', {});
		expect(value('toEmail')).toBe(person.email);
		expect(`${value('subject')}\n${value('text')}`).toContain(file.startsWith('8') ? `on ${inWords}` : String((a.calendar as IDataObject).name));
		expect(value('text')).toContain(String(person.full_name));
		expect(value('text')).toContain(inWords);
	}
});
