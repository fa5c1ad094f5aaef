/**
 * End-to-end: a real n8n 2.41.1 (https on localhost, our package installed as a community package) against
 * the sandbox on loopback. n8n is driven only from outside: its CLI, its REST login and its public API. The
 * package's types and credential test, and the examples that run on demand, each checked in the sandbox and the
 * mail sink. The trigger's runs are in n8n-trigger.test.ts. If n8n cannot be installed or started, beforeAll fails
 * with the reason and every test fails (no skip).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { executeWorkflow, n8nCliOk, nodeOutput, type CliRun } from '../../scripts/n8nCli';
import { startE2EStack, TZ } from '../helpers/e2e';
import {
	createAppointment,
	emptyMailbox,
	FRONT_DESK,
	fmt,
	listAppointments,
	mailbox,
	mailsMatching,
	runManually,
	SENDER,
	subscriptions,
	TRIGGER_TYPE,
} from '../helpers/e2eRuns';
import { stopAll } from '../../scripts/proc';
import { CREDENTIAL_ID, CREDENTIAL_NAME, CREDENTIAL_TYPE, type Stack } from '../../scripts/stack';

const NODE_TYPE = 'n8n-nodes-appointments.appointments';
const wall = (d: DateTime) => d.toFormat("yyyy-MM-dd'T'HH:mm:ss");

let stack: Stack;

beforeAll(async () => {
	stack = await startE2EStack('e2e', {
		email: 'e2e@example.com',
		password: 'E2e-Passw0rd',
		firstName: 'E2E',
		lastName: 'Owner',
	});
}, 20 * 60_000);

afterAll(async () => {
	await stack?.stop();
	await stopAll();
});

// ---------- helpers ----------

const dayRange = (d: DateTime) => ({
	start_date: wall(d.startOf('day')),
	end_date: wall(d.endOf('day').set({ millisecond: 0 })),
});

async function record(key: string): Promise<any> {
	return stack.admin.ok('GET', `/__sandbox/appointments/${key}/`);
}

async function runOk(workflowId: string): Promise<CliRun> {
	const r = await executeWorkflow(stack.n8n, workflowId);
	if (r.code !== 0 || !r.run)
		throw new Error(`workflow ${workflowId} failed (exit ${r.code}):\n${r.log.slice(-4000)}`);
	expect(r.run.status).toBe('success');
	return r;
}

const keys = (items: any[]) => items.map((i) => i.appointment_key).sort();

/** What the editor's "Execute workflow" does: a manual run from the given trigger (a Schedule Trigger works too). */
async function runFromEditor(workflowId: string, triggerName: string): Promise<any> {
	const ex = await runManually(stack, workflowId, triggerName);
	if (ex.status !== 'success')
		throw new Error(
			`workflow ${workflowId} did not succeed: ${JSON.stringify(ex.data?.resultData?.error ?? ex.status)}`,
		);
	return ex;
}

/** A status as the agenda email writes it: PENDING_PAYMENT → Pending payment. */
const readable = (status: unknown) =>
	String(status).charAt(0) + String(status).slice(1).toLowerCase().replaceAll('_', ' ');

describe('package in a real n8n', () => {
	test('n8n lists our node types and the credential type', async () => {
		const nodes: any[] = await stack.rest.ok('GET', '/types/nodes.json');
		const names = nodes.map((n) => n.name);
		expect(names).toEqual(expect.arrayContaining([NODE_TYPE, TRIGGER_TYPE]));
		const creds: any[] = await stack.rest.ok('GET', '/types/credentials.json');
		const cred = creds.find((c) => c.name === CREDENTIAL_TYPE);
		expect(cred?.displayName).toBe('Appointments API');
	});

	test('credential test passes with the right token and fails with a wrong one', async () => {
		const testWith = async (accessToken: string) =>
			(
				await stack.rest.ok('POST', '/rest/credentials/test', {
					body: {
						credentials: {
							id: CREDENTIAL_ID,
							name: CREDENTIAL_NAME,
							type: CREDENTIAL_TYPE,
							data: { baseUrl: stack.sandboxUrl, accessToken },
						},
					},
				})
			).data;
		const sandboxSaw = async () => {
			const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
			await stack.admin.ok('DELETE', '/__sandbox/requests/');
			return requests.map((r: any) => `${r.method} ${r.path} ${r.status} ${r.authorized}`);
		};
		await stack.admin.ok('DELETE', '/__sandbox/requests/');
		const good = await testWith(stack.apiToken);
		expect(good.status).toBe('OK');
		expect(await sandboxSaw()).toEqual(['GET /api/v3/webhooks/ 200 true']);

		const bad = await testWith('not-the-right-token');
		expect(bad.status).toBe('Error');
		expect(bad.message).toMatch(/access token is invalid/i);
		expect(bad.message).not.toContain('not-the-right-token');
		// Really refused by the sandbox (n8n itself sends the test request a second time after a 401).
		const refused = await sandboxSaw();
		expect(refused.length).toBeGreaterThan(0);
		for (const r of refused) expect(r).toBe('GET /api/v3/webhooks/ 401 false');
	});
});

describe('example workflows run on demand', () => {
	test("1 morning agenda: Execute workflow emails the front desk today's appointments, in the mailbox", async () => {
		const now = DateTime.now().setZone(TZ);
		// Make sure there is at least one to report (later today).
		const made = await createAppointment(stack, {
			status: 'CONFIRMED',
			start_date: DateTime.min(now.plus({ minutes: 30 }), now.endOf('day').minus({ minutes: 1 }))
				.set({ second: 0, millisecond: 0 })
				.toISO(),
		});
		const expected = await listAppointments(stack, { is_cancelled: 'false', ...dayRange(now) });
		expect(keys(expected)).toContain(made.appointment_key);
		await emptyMailbox(stack);
		const ex = await runFromEditor('apptDailyReport', 'Every Day at 07:00');
		expect(keys(nodeOutput(ex, "Today's Appointments"))).toEqual(keys(expected));
		const [mail] = await mailsMatching(
			stack,
			1,
			(m) => m.subject.startsWith("[Example 1] Today's appointments"),
			'the agenda email',
		);
		expect(await mailbox(stack)).toHaveLength(1);
		expect(mail.from).toContain(SENDER);
		expect(mail.to).toEqual([FRONT_DESK]);
		expect(mail.subject).toBe(
			`[Example 1] Today's appointments: ${expected.length} (${now.toFormat('cccc d LLLL')})`,
		);
		const lines = mail.text.split('\n').filter((l) => /^\d\d:\d\d /.test(l));
		expect(lines).toHaveLength(expected.length);
		for (const a of expected) {
			expect(lines).toContain(
				`${fmt(a.start_date, 'HH:mm')}  ${a.person.full_name} · ${a.calendar.name} · ${readable(a.status)} · ${a.search_code}`,
			);
		}
	});

	test('2 mark no-shows: every CONFIRMED appointment of yesterday becomes NO_SHOW, the front desk gets the list', async () => {
		const yesterday = DateTime.now().setZone(TZ).minus({ days: 1 });
		await createAppointment(stack, {
			status: 'CONFIRMED',
			start_date: yesterday.set({ hour: 10, minute: 0, second: 0, millisecond: 0 }).toISO(),
		});
		const query = { status: 'CONFIRMED', ...dayRange(yesterday) };
		const before = await listAppointments(stack, query);
		expect(before.length).toBeGreaterThan(0);
		await emptyMailbox(stack);
		const ex = await runFromEditor('apptMarkNoShows', 'Every Day at 06:00');
		const out = nodeOutput(ex, 'Mark as No-Show');
		expect(keys(out)).toEqual(keys(before));
		for (const item of out) expect(item.status).toBe('NO_SHOW');
		for (const a of before) expect((await record(a.appointment_key)).status).toBe('NO_SHOW');
		expect(await listAppointments(stack, query)).toHaveLength(0);
		const [mail] = await mailsMatching(
			stack,
			1,
			(m) => m.subject.startsWith('[Example 2] No-shows yesterday'),
			'the no-show email',
		);
		expect(mail).toMatchObject({
			to: [FRONT_DESK],
			subject: `[Example 2] No-shows yesterday: ${before.length}`,
		});
		for (const a of before)
			expect(mail.text).toContain(`${a.person.full_name} <${a.person.email}>`);
	});

	test("3 reschedule and cancel: start moved one day and the client emailed, the other canceled with the service's email, the front desk emailed", async () => {
		const now = DateTime.now().setZone(TZ);
		await createAppointment(stack, {
			status: 'CONFIRMED',
			start_date: now
				.plus({ days: 1 })
				.set({ hour: 9, minute: 0, second: 0, millisecond: 0 })
				.toISO(),
		});
		await createAppointment(stack, {
			status: 'PENDING',
			start_date: now
				.plus({ days: 2 })
				.set({ hour: 15, minute: 0, second: 0, millisecond: 0 })
				.toISO(),
		});
		await stack.admin.ok('DELETE', '/__sandbox/requests/');
		await emptyMailbox(stack);
		const r = await runOk('apptReschedCancel');

		const [picked] = nodeOutput(r.run, 'Next Confirmed Tomorrow');
		const [moved] = nodeOutput(r.run, 'Move One Day Later');
		expect(moved.appointment_key).toBe(picked.appointment_key);
		const want = DateTime.fromISO(picked.start_date, { setZone: true })
			.plus({ days: 1 })
			.toMillis();
		expect(DateTime.fromISO(moved.start_date).toMillis()).toBe(want);
		expect(DateTime.fromISO((await record(picked.appointment_key)).start_date).toMillis()).toBe(
			want,
		);

		const [pending] = nodeOutput(r.run, 'Next Pending This Week');
		expect(pending.status).toBe('PENDING');
		const canceled = nodeOutput(r.run, 'Cancel and Email Client');
		expect(canceled).toHaveLength(1);
		const rec = await record(pending.appointment_key);
		expect(rec.is_cancelled === true || String(rec.status).startsWith('CANCELED')).toBe(true);
		const { emails } = await stack.admin.ok('GET', '/__sandbox/emails/');
		expect(emails.filter((e: any) => e.appointment_key === pending.appointment_key)).toHaveLength(
			1,
		);
		const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
		const del = requests.filter((q: any) => q.method === 'DELETE');
		expect(del).toHaveLength(1);
		expect(del[0].path).toContain(pending.appointment_key);
		expect(
			String(del[0].query?.send_email ?? new URLSearchParams(del[0].query).get('send_email')),
		).toBe('true');

		const [toClient] = await mailsMatching(
			stack,
			1,
			(m) => m.subject.startsWith('[Example 3] Your appointment has moved'),
			"the client's email",
		);
		expect(toClient).toMatchObject({
			to: [picked.person.email],
			subject: `[Example 3] Your appointment has moved to ${fmt(moved.start_date, 'ccc d LLL, HH:mm')}`,
		});
		expect(toClient.text).toContain(picked.search_code);
		const [toDesk] = await mailsMatching(
			stack,
			1,
			(m) => m.to.includes(FRONT_DESK),
			"the front desk's email",
		);
		expect(toDesk.subject).toBe(
			`[Example 3] Canceled: ${pending.person.full_name}, ${fmt(pending.start_date, 'ccc d LLL, HH:mm')}`,
		);
	});

	test('5 webhook housekeeping: create, list, update, delete are all reflected in the sandbox, the list is emailed', async () => {
		await emptyMailbox(stack);
		const r = await runOk('apptWebhookHousekeep');
		const [created] = nodeOutput(r.run, 'Create Demo Subscription');
		expect(created.webhook_key).toBeTruthy();
		expect(nodeOutput(r.run, 'List Subscriptions').map((w) => w.webhook_key)).toContain(
			created.webhook_key,
		);
		const updated = nodeOutput(r.run, 'Also Listen to Cancellations');
		expect(updated).toHaveLength(1);
		expect([...updated[0].events].sort()).toEqual(['appointment.canceled', 'appointment.created']);
		const deleted = nodeOutput(r.run, 'Delete Demo Subscription');
		expect(deleted).toHaveLength(1);
		expect(deleted[0].deleted).toBe(true);
		expect((await subscriptions(stack)).map((s) => s.webhook_key)).not.toContain(
			created.webhook_key,
		);
		const listed = nodeOutput(r.run, 'List Subscriptions');
		const [mail] = await mailsMatching(
			stack,
			1,
			(m) => m.subject.startsWith('[Example 5] Webhook subscriptions'),
			'the subscription list email',
		);
		expect(mail.subject).toBe(`[Example 5] Webhook subscriptions: ${listed.length}`);
		expect(mail.text).toContain(`${created.url}  appointment.created  (${created.webhook_key})`);
	});

	test('a malformed appointment key fails before any request, with our message in the execution', async () => {
		const id = 'e2eMalformedKey';
		const badKey = 'not a key/../../webhooks';
		const wf = {
			id,
			name: 'E2E: malformed key',
			nodes: [
				{
					id: 'b1e6c1d0-0000-4000-8000-000000000001',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
				{
					id: 'b1e6c1d0-0000-4000-8000-000000000002',
					name: 'Get Appointment',
					type: NODE_TYPE,
					typeVersion: 1,
					position: [220, 0],
					parameters: {
						resource: 'appointment',
						operation: 'get',
						appointmentKey: badKey,
						options: {},
					},
					credentials: { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
				},
			],
			connections: { Start: { main: [[{ node: 'Get Appointment', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		};
		const file = path.join(stack.n8n.userFolder, 'malformed.json');
		fs.writeFileSync(file, JSON.stringify([wf]));
		await n8nCliOk(stack.n8n, ['import:workflow', `--input=${file}`]);
		await stack.admin.ok('DELETE', '/__sandbox/requests/');

		const r = await executeWorkflow(stack.n8n, id);
		expect(r.code).not.toBe(0);
		const list: any = await stack.api.ok(
			'GET',
			`/api/v1/executions?workflowId=${id}&status=error&includeData=true`,
		);
		expect(list.data).toHaveLength(1);
		const error = list.data[0].data.resultData.error;
		const message = `${error.message} ${error.description ?? ''}`;
		expect(message).toMatch(/appointment ?key/i);
		expect(error.message).toContain(JSON.stringify(badKey));
		// The CLI reports the same message (its log is JSON lines).
		const logged = r.log.split('\n').flatMap((l) => {
			try {
				return [String(JSON.parse(l).message)];
			} catch {
				return [];
			}
		});
		expect(logged).toContain(error.message);
		const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
		expect(requests).toHaveLength(0);
	});
});
