/**
 * End-to-end: a real n8n 2.41.1 (https on localhost, our package installed as a community package) against
 * the sandbox on loopback. n8n is driven only from outside: its CLI, its REST login and its public API.
 * If n8n cannot be installed or started, beforeAll fails with the reason and every test fails (no skip).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { executeWorkflow, n8nCliOk, nodeOutput, type CliRun } from '../../scripts/n8nCli';
import { e2eUserFolder } from '../helpers/e2e';
import { killAllOnSignals, pollUntil, stopAll } from '../../scripts/proc';
import {
	activate,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	CREDENTIAL_TYPE,
	deactivate,
	startStack,
	type Stack,
} from '../../scripts/stack';

const TZ = 'America/Santiago'; // the sandbox's account time zone, also n8n's GENERIC_TIMEZONE here
const NODE_TYPE = 'n8n-nodes-appointments.appointments';
const TRIGGER_TYPE = 'n8n-nodes-appointments.appointmentsTrigger';
const wall = (d: DateTime) => d.toFormat("yyyy-MM-dd'T'HH:mm:ss");

let stack: Stack;

beforeAll(async () => {
	killAllOnSignals();
	const userFolder = e2eUserFolder('e2e');
	try {
		stack = await startStack({
			userFolder,
			owner: { email: 'e2e@example.com', password: 'E2e-Passw0rd', firstName: 'E2E', lastName: 'Owner' },
			reimport: 'always',
			log: (m) => process.stderr.write(`[e2e] ${m}\n`),
		});
	} catch (e) {
		// Every test then fails with this error (jest's rule for a failing beforeAll): never a silent skip.
		process.stderr.write(`\n[e2e] ERROR: could not set up the stack (build and pack, n8n install, sandbox, n8n start, owner and API key):\n${(e as Error).message}\n\n`);
		throw e;
	}
}, 20 * 60_000);

afterAll(async () => {
	await stack?.stop();
	await stopAll();
});

// ---------- helpers ----------

async function listAppointments(query: Record<string, string>): Promise<any[]> {
	const qs = new URLSearchParams({ ...query, page_size: '500' }).toString();
	const out: any[] = [];
	let next: string | null = `/api/v3/appointments/?${qs}`;
	while (next) {
		const page: any = await stack.sandboxApi.ok('GET', next);
		const results = Array.isArray(page) ? page : page.results;
		out.push(...results);
		next = !Array.isArray(page) && page.next ? new URL(page.next, stack.sandboxUrl).pathname + new URL(page.next, stack.sandboxUrl).search : null;
	}
	return out;
}

const dayRange = (d: DateTime) => ({ start_date: wall(d.startOf('day')), end_date: wall(d.endOf('day').set({ millisecond: 0 })) });

async function record(key: string): Promise<any> {
	return stack.admin.ok('GET', `/__sandbox/appointments/${key}/`);
}

async function createAppointment(body: Record<string, unknown>): Promise<any> {
	return stack.admin.ok('POST', '/__sandbox/appointments/', { body });
}

async function subscriptions(): Promise<any[]> {
	const b: any = await stack.admin.ok('GET', '/__sandbox/webhooks/');
	return Array.isArray(b) ? b : (b.webhooks ?? b.results ?? []);
}

/** The subscriptions of one of our example workflows: n8n's webhook URLs carry the trigger node's webhookId. */
function ours(subs: any[], workflowId: string) {
	const ex = stack.examples.find((e) => e.id === workflowId);
	const trigger = ex?.json.nodes.find((n: any) => n.type === TRIGGER_TYPE);
	if (!trigger?.webhookId) throw new Error(`example ${workflowId} has no trigger node with a webhookId`);
	return subs.filter((s) => String(s.url).startsWith(`${stack.n8n.url}/webhook/${trigger.webhookId}/`));
}

async function runOk(workflowId: string): Promise<CliRun> {
	const r = await executeWorkflow(stack.n8n, workflowId);
	if (r.code !== 0 || !r.run) throw new Error(`workflow ${workflowId} failed (exit ${r.code}):\n${r.log.slice(-4000)}`);
	expect(r.run.status).toBe('success');
	return r;
}

const keys = (items: any[]) => items.map((i) => i.appointment_key).sort();

/** What the editor's "Execute workflow" does: a manual run from the given trigger (a Schedule Trigger works too). */
async function runFromEditor(workflowId: string, triggerName: string): Promise<any> {
	const r: any = await stack.rest.ok('POST', `/rest/workflows/${workflowId}/run`, { body: { triggerToStartFrom: { name: triggerName } } });
	const id = String(r.data.executionId);
	const ex: any = await pollUntil(
		`execution ${id} of ${workflowId}`,
		async () => {
			const e: any = await stack.api.ok('GET', `/api/v1/executions/${id}?includeData=true`);
			return e.finished || ['success', 'error', 'crashed'].includes(e.status) ? e : undefined;
		},
		{ timeoutMs: 120000 },
	);
	if (ex.status !== 'success') throw new Error(`workflow ${workflowId} did not succeed: ${JSON.stringify(ex.data?.resultData?.error ?? ex.status)}`);
	return ex;
}

interface Mail {
	from: string;
	to: string[];
	subject: string;
	text: string;
}

/** The emails the sandbox's mail sink received, oldest first. */
async function mailbox(): Promise<Mail[]> {
	const { results } = await stack.admin.ok('GET', '/__sandbox/mailbox/');
	return [...results].reverse();
}

const emptyMailbox = () => stack.admin.ok('DELETE', '/__sandbox/mailbox/');

/** Waits until the mailbox holds `count` emails that `match`, and returns them. */
async function mailsMatching(count: number, match: (m: Mail) => boolean, what: string): Promise<Mail[]> {
	return await pollUntil(
		what,
		async () => {
			const got = (await mailbox()).filter(match);
			if (got.length >= count) return got;
			throw new Error(`${got.length} so far; mailbox: ${JSON.stringify((await mailbox()).map((m) => m.subject))}`);
		},
		{ timeoutMs: 30000 },
	);
}

const FRONT_DESK = 'front-desk@example.com';
const SENDER = 'bookings@example.com';
/** A status as the agenda email writes it: PENDING_PAYMENT → Pending payment. */
const readable = (status: unknown) => String(status).charAt(0) + String(status).slice(1).toLowerCase().replaceAll('_', ' ');
const fmt = (iso: string, f: string) => DateTime.fromISO(iso, { setZone: true }).setZone(TZ).toFormat(f);

// ---------- tests ----------

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
		const made = await createAppointment({
			status: 'CONFIRMED',
			start_date: DateTime.min(now.plus({ minutes: 30 }), now.endOf('day').minus({ minutes: 1 })).set({ second: 0, millisecond: 0 }).toISO(),
		});
		const expected = await listAppointments({ is_cancelled: 'false', ...dayRange(now) });
		expect(keys(expected)).toContain(made.appointment_key);
		await emptyMailbox();
		const ex = await runFromEditor('apptDailyReport', 'Every Day at 07:00');
		expect(keys(nodeOutput(ex, "Today's Appointments"))).toEqual(keys(expected));
		const [mail] = await mailsMatching(1, (m) => m.subject.startsWith("Today's appointments"), 'the agenda email');
		expect(await mailbox()).toHaveLength(1);
		expect(mail.from).toContain(SENDER);
		expect(mail.to).toEqual([FRONT_DESK]);
		expect(mail.subject).toBe(`Today's appointments: ${expected.length} (${now.toFormat('cccc d LLLL')})`);
		const lines = mail.text.split('\n').filter((l) => /^\d\d:\d\d /.test(l));
		expect(lines).toHaveLength(expected.length);
		for (const a of expected) {
			expect(lines).toContain(`${fmt(a.start_date, 'HH:mm')}  ${a.person.full_name} · ${a.calendar.name} · ${readable(a.status)} · ${a.search_code}`);
		}
	});

	test('2 mark no-shows: every CONFIRMED appointment of yesterday becomes NO_SHOW, the front desk gets the list', async () => {
		const yesterday = DateTime.now().setZone(TZ).minus({ days: 1 });
		await createAppointment({ status: 'CONFIRMED', start_date: yesterday.set({ hour: 10, minute: 0, second: 0, millisecond: 0 }).toISO() });
		const query = { status: 'CONFIRMED', ...dayRange(yesterday) };
		const before = await listAppointments(query);
		expect(before.length).toBeGreaterThan(0);
		await emptyMailbox();
		const ex = await runFromEditor('apptMarkNoShows', 'Every Day at 06:00');
		const out = nodeOutput(ex, 'Mark as No-Show');
		expect(keys(out)).toEqual(keys(before));
		for (const item of out) expect(item.status).toBe('NO_SHOW');
		for (const a of before) expect((await record(a.appointment_key)).status).toBe('NO_SHOW');
		expect(await listAppointments(query)).toHaveLength(0);
		const [mail] = await mailsMatching(1, (m) => m.subject.startsWith('No-shows yesterday'), 'the no-show email');
		expect(mail).toMatchObject({ to: [FRONT_DESK], subject: `No-shows yesterday: ${before.length}` });
		for (const a of before) expect(mail.text).toContain(`${a.person.full_name} <${a.person.email}>`);
	});

	test('3 reschedule and cancel: start moved one day and the client emailed, the other canceled with the service\'s email, the front desk emailed', async () => {
		const now = DateTime.now().setZone(TZ);
		await createAppointment({ status: 'CONFIRMED', start_date: now.plus({ days: 1 }).set({ hour: 9, minute: 0, second: 0, millisecond: 0 }).toISO() });
		await createAppointment({ status: 'PENDING', start_date: now.plus({ days: 2 }).set({ hour: 15, minute: 0, second: 0, millisecond: 0 }).toISO() });
		await stack.admin.ok('DELETE', '/__sandbox/requests/');
		await emptyMailbox();
		const r = await runOk('apptReschedCancel');

		const [picked] = nodeOutput(r.run, 'Next Confirmed Tomorrow');
		const [moved] = nodeOutput(r.run, 'Move One Day Later');
		expect(moved.appointment_key).toBe(picked.appointment_key);
		const want = DateTime.fromISO(picked.start_date, { setZone: true }).plus({ days: 1 }).toMillis();
		expect(DateTime.fromISO(moved.start_date).toMillis()).toBe(want);
		expect(DateTime.fromISO((await record(picked.appointment_key)).start_date).toMillis()).toBe(want);

		const [pending] = nodeOutput(r.run, 'Next Pending This Week');
		expect(pending.status).toBe('PENDING');
		const canceled = nodeOutput(r.run, 'Cancel and Email Client');
		expect(canceled).toHaveLength(1);
		const rec = await record(pending.appointment_key);
		expect(rec.is_cancelled === true || String(rec.status).startsWith('CANCELED')).toBe(true);
		const { emails } = await stack.admin.ok('GET', '/__sandbox/emails/');
		expect(emails.filter((e: any) => e.appointment_key === pending.appointment_key)).toHaveLength(1);
		const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
		const del = requests.filter((q: any) => q.method === 'DELETE');
		expect(del).toHaveLength(1);
		expect(del[0].path).toContain(pending.appointment_key);
		expect(String(del[0].query?.send_email ?? new URLSearchParams(del[0].query).get('send_email'))).toBe('true');

		const [toClient] = await mailsMatching(1, (m) => m.subject.startsWith('Your appointment has moved'), "the client's email");
		expect(toClient).toMatchObject({ to: [picked.person.email], subject: `Your appointment has moved to ${fmt(moved.start_date, 'ccc d LLL, HH:mm')}` });
		expect(toClient.text).toContain(picked.search_code);
		const [toDesk] = await mailsMatching(1, (m) => m.to.includes(FRONT_DESK), "the front desk's email");
		expect(toDesk.subject).toBe(`Canceled: ${pending.person.full_name}, ${fmt(pending.start_date, 'ccc d LLL, HH:mm')}`);
	});

	test('5 webhook housekeeping: create, list, update, delete are all reflected in the sandbox, the list is emailed', async () => {
		await emptyMailbox();
		const r = await runOk('apptWebhookHousekeep');
		const [created] = nodeOutput(r.run, 'Create Demo Subscription');
		expect(created.webhook_key).toBeTruthy();
		expect(nodeOutput(r.run, 'List Subscriptions').map((w) => w.webhook_key)).toContain(created.webhook_key);
		const updated = nodeOutput(r.run, 'Also Listen to Cancellations');
		expect(updated).toHaveLength(1);
		expect([...updated[0].events].sort()).toEqual(['appointment.canceled', 'appointment.created']);
		const deleted = nodeOutput(r.run, 'Delete Demo Subscription');
		expect(deleted).toHaveLength(1);
		expect(deleted[0].deleted).toBe(true);
		expect((await subscriptions()).map((s) => s.webhook_key)).not.toContain(created.webhook_key);
		const listed = nodeOutput(r.run, 'List Subscriptions');
		const [mail] = await mailsMatching(1, (m) => m.subject.startsWith('Webhook subscriptions'), 'the subscription list email');
		expect(mail.subject).toBe(`Webhook subscriptions: ${listed.length}`);
		expect(mail.text).toContain(`${created.url}  appointment.created  (${created.webhook_key})`);
	});

	test('a malformed appointment key fails before any request, with our message in the execution', async () => {
		const id = 'e2eMalformedKey';
		const badKey = 'not a key/../../webhooks';
		const wf = {
			id,
			name: 'E2E: malformed key',
			nodes: [
				{ id: 'b1e6c1d0-0000-4000-8000-000000000001', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{
					id: 'b1e6c1d0-0000-4000-8000-000000000002',
					name: 'Get Appointment',
					type: NODE_TYPE,
					typeVersion: 1,
					position: [220, 0],
					parameters: { resource: 'appointment', operation: 'get', appointmentKey: badKey, options: {} },
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
		const list: any = await stack.api.ok('GET', `/api/v1/executions?workflowId=${id}&status=error&includeData=true`);
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

describe('trigger in a real n8n', () => {
	async function executions(workflowId: string): Promise<any[]> {
		const b: any = await stack.api.ok('GET', `/api/v1/executions?workflowId=${workflowId}&limit=250`);
		return b.data;
	}

	/**
	 * Runs `act`, waits until the sandbox delivered the event to the workflow's subscription (`copies` times: 2 with
	 * duplicateDelivery) and nothing is pending, then expects exactly one new execution of the workflow.
	 */
	async function expectOneExecution(
		workflowId: string,
		nodeName: string,
		event: string,
		act: () => Promise<string>,
		copies = 1,
	) {
		const seen = new Set((await executions(workflowId)).map((e) => e.id));
		const key = await act();
		await pollUntil(
			`${copies} delivered cop${copies === 1 ? 'y' : 'ies'} of ${event} for ${key}`,
			async () => {
				const d: any = await stack.admin.ok('GET', '/__sandbox/deliveries/');
				const mine = d.deliveries.filter((x: any) => x.event === event && x.appointment_key === key);
				if (d.pending === 0 && mine.filter((x: any) => x.ok).length >= copies) return mine;
				throw new Error(`pending ${d.pending}, deliveries so far: ${JSON.stringify(mine)}`); // shown on time-out
			},
			{ timeoutMs: 30000 },
		);
		const fresh = await pollUntil(
			`the execution for ${event}`,
			async () => {
				const l = (await executions(workflowId)).filter((e) => !seen.has(e.id));
				return l.length > 0 && l.every((e) => e.finished || e.status === 'success' || e.status === 'error') ? l : undefined;
			},
			{ timeoutMs: 60000 },
		);
		expect(fresh).toHaveLength(1);
		expect(fresh[0].status).toBe('success');
		const ex: any = await stack.api.ok('GET', `/api/v1/executions/${fresh[0].id}?includeData=true`);
		const items = nodeOutput(ex, nodeName);
		expect(items).toHaveLength(1);
		expect(items[0].event).toBe(event);
		expect(items[0].data.appointment_key).toBe(key);
		return { item: items[0], execution: ex };
	}

	/** The trigger's output of every execution of the workflow, oldest first: [event, appointment_key]. */
	async function triggeredEvents(workflowId: string, nodeName: string): Promise<string[][]> {
		const list = (await executions(workflowId)).sort((a, b) => Number(a.id) - Number(b.id));
		const out: string[][] = [];
		for (const e of list) {
			const ex: any = await stack.api.ok('GET', `/api/v1/executions/${e.id}?includeData=true`);
			for (const i of nodeOutput(ex, nodeName)) out.push([i.event, i.data?.appointment_key]);
		}
		return out;
	}

	test('4 email on new and canceled: activation registers one https subscription; each event emails the front desk; deactivation removes it', async () => {
		const wf = 'apptReactToEvents';
		const node = 'On Created or Canceled';
		const before = (await subscriptions()).length; // 0 unless example 5 failed to clean up after itself
		await activate(stack.api, wf);
		try {
			const subs = await pollUntil('one new subscription', async () => {
				const s = ours(await subscriptions(), wf);
				return s.length > 0 ? s : undefined;
			});
			expect(subs).toHaveLength(1);
			expect(await subscriptions()).toHaveLength(before + 1);
			expect(subs[0].url).toMatch(new RegExp(`^https://localhost:${stack.n8n.port}/webhook/`));
			expect([...subs[0].events].sort()).toEqual(['appointment.canceled', 'appointment.created']);

			let created: any;
			await emptyMailbox();
			const c = await expectOneExecution(wf, node, 'appointment.created', async () => {
				created = await createAppointment({ status: 'CONFIRMED' });
				return created.appointment_key;
			});
			expect(nodeOutput(c.execution, 'Which Event?', 0)).toHaveLength(1);
			expect(nodeOutput(c.execution, 'Which Event?', 1)).toHaveLength(0);
			const when = fmt(c.item.data.start_date, 'ccc d LLL, HH:mm');
			const [hello] = await mailsMatching(1, (m) => m.text.includes(created.search_code), 'the new-appointment email');
			expect(hello).toMatchObject({ to: [FRONT_DESK], subject: `New appointment: ${created.person.full_name}, ${when}` });
			expect(hello.from).toContain(SENDER);

			const x = await expectOneExecution(wf, node, 'appointment.canceled', async () => {
				await stack.sandboxApi.ok('DELETE', `/api/v3/appointments/${created.appointment_key}/?send_email=false`);
				return created.appointment_key;
			});
			expect(nodeOutput(x.execution, 'Which Event?', 0)).toHaveLength(0);
			const mails = await mailsMatching(2, (m) => m.text.includes(created.search_code), 'the canceled-appointment email');
			expect(mails).toHaveLength(2);
			expect(mails[1]).toMatchObject({ to: [FRONT_DESK], subject: `Canceled: ${created.person.full_name}, ${when}` });
			// send_email=false: the service sent no cancellation email to the client.
			const { emails } = await stack.admin.ok('GET', '/__sandbox/emails/');
			expect(emails.filter((e: any) => e.appointment_key === created.appointment_key)).toHaveLength(0);
		} finally {
			await deactivate(stack.api, wf);
		}
		await pollUntil('its subscription removed', async () => (ours(await subscriptions(), wf).length === 0 ? true : undefined));
		expect(await subscriptions()).toHaveLength(before);
	});

	test('6 created, canceled and updated each give exactly one execution and one email, with duplicate delivery on', async () => {
		const wf = 'apptTriggerDedupe';
		const node = 'On Any Appointment Event';
		await emptyMailbox();
		await stack.admin.ok('POST', '/__sandbox/config/', { body: { duplicateDelivery: true } });
		try {
			await activate(stack.api, wf);
			const subs = await pollUntil('its subscription', async () => {
				const s = ours(await subscriptions(), wf);
				return s.length > 0 ? s : undefined;
			});
			expect(subs).toHaveLength(1);
			expect(subs[0].url).toMatch(new RegExp(`^https://localhost:${stack.n8n.port}/webhook/`));
			expect([...subs[0].events].sort()).toEqual(['appointment.canceled', 'appointment.created', 'appointment.updated']);

			let created: any;
			const c = await expectOneExecution(wf, node, 'appointment.created', async () => {
				created = await createAppointment({ status: 'CONFIRMED' });
				return created.appointment_key;
			}, 2);
			expect(c.item.data.status).toBe('CONFIRMED');
			// Remove Duplicates lets a first delivery through.
			expect(nodeOutput(c.execution, 'Email the Event')).toHaveLength(1);

			await expectOneExecution(wf, node, 'appointment.canceled', async () => {
				await stack.sandboxApi.ok('DELETE', `/api/v3/appointments/${created.appointment_key}/?send_email=false`);
				return created.appointment_key;
			}, 2);

			const [victim] = await listAppointments({ status: 'CONFIRMED' });
			const u = await expectOneExecution(wf, node, 'appointment.updated', async () => {
				await stack.sandboxApi.ok('PATCH', `/api/v3/appointments/${victim.appointment_key}/`, { body: { status: 'ATTENDED' } });
				return victim.appointment_key;
			}, 2);
			expect(u.item.data.status).toBe('ATTENDED');

			// Six deliveries (every event twice), three executions in all: no late duplicate ran afterwards.
			const d: any = await stack.admin.ok('GET', '/__sandbox/deliveries/');
			const keysOf = [created.appointment_key, victim.appointment_key];
			expect(d.deliveries.filter((x: any) => x.ok && keysOf.includes(x.appointment_key) && x.url === subs[0].url)).toHaveLength(6);
			expect(await triggeredEvents(wf, node)).toEqual([
				['appointment.created', created.appointment_key],
				['appointment.canceled', created.appointment_key],
				['appointment.updated', victim.appointment_key],
			]);
			// One email per event, not per delivery.
			const emailed = await mailsMatching(3, (m) => m.subject.startsWith('Appointment '), 'one email per event');
			expect(emailed.map((m) => [m.subject.split(':')[0], m.text.includes(created.search_code) ? 'created' : 'victim'])).toEqual([
				['Appointment created', 'created'],
				['Appointment canceled', 'created'],
				['Appointment updated', 'victim'],
			]);
		} finally {
			await deactivate(stack.api, wf).catch(() => undefined);
			await stack.admin.ok('POST', '/__sandbox/config/', { body: { duplicateDelivery: false } });
		}
		await pollUntil('its subscription removed', async () => (ours(await subscriptions(), wf).length === 0 ? true : undefined));
	});
});

describe('trigger test mode in a real n8n', () => {
	const wf = 'apptReactToEvents';
	const node = 'On Created or Canceled';

	function webhookIdOf(workflowId: string): string {
		const ex = stack.examples.find((e) => e.id === workflowId);
		const trigger = ex?.json.nodes.find((n: any) => n.type === TRIGGER_TYPE);
		if (!trigger?.webhookId) throw new Error(`example ${workflowId} has no trigger node with a webhookId`);
		return trigger.webhookId;
	}

	/** Subscriptions for n8n's TEST webhook URL of the workflow's trigger (…/webhook-test/<webhookId>/…). */
	async function testSubscriptions(workflowId: string): Promise<any[]> {
		const prefix = `${stack.n8n.url}/webhook-test/${webhookIdOf(workflowId)}/`;
		return (await subscriptions()).filter((s) => String(s.url).startsWith(prefix));
	}

	async function executions(workflowId: string): Promise<any[]> {
		const b: any = await stack.api.ok('GET', `/api/v1/executions?workflowId=${workflowId}&limit=250`);
		return b.data;
	}

	/** What the editor's "Listen for test event" button does: a manual run from the trigger, which waits for its webhook. */
	async function listen(workflowId: string, triggerName: string): Promise<any> {
		const r: any = await stack.rest.ok('POST', `/rest/workflows/${workflowId}/run`, {
			body: { triggerToStartFrom: { name: triggerName } },
		});
		expect(r.data).toEqual({ waitingForWebhook: true });
		const subs = await pollUntil('the test subscription', async () => {
			const s = await testSubscriptions(workflowId);
			return s.length > 0 ? s : undefined;
		});
		expect(subs).toHaveLength(1);
		expect([...subs[0].events].sort()).toEqual(['appointment.canceled', 'appointment.created']);
		return subs[0];
	}

	async function testSubscriptionRemoved(workflowId: string, what: string) {
		await pollUntil(
			what,
			async () => {
				const s = await testSubscriptions(workflowId);
				if (s.length === 0) return true;
				throw new Error(`still there: ${JSON.stringify(s)}`);
			},
			{ timeoutMs: 30000 },
		);
	}

	test('"Listen for test event" subscribes the test URL, the first event completes the run, listening ends without it; production untouched', async () => {
		await activate(stack.api, wf);
		try {
			const [prod] = await pollUntil('the production subscription', async () => {
				const s = ours(await subscriptions(), wf);
				return s.length > 0 ? s : undefined;
			});
			expect(ours(await subscriptions(), wf)).toEqual([prod]);
			await stack.admin.ok('DELETE', '/__sandbox/requests/');
			const prodUntouched = async () => {
				expect(ours(await subscriptions(), wf)).toEqual([prod]);
				const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
				const onProd = requests.filter((q: any) => String(q.path).includes(prod.webhook_key));
				expect(onProd).toEqual([]);
			};

			// (a) Listening ends with the first event.
			const seen = new Set((await executions(wf)).map((e) => e.id));
			const sub = await listen(wf, node);
			expect(sub.url).toBe(`${stack.n8n.url}/webhook-test/${webhookIdOf(wf)}/webhook`);
			expect(sub.webhook_key).not.toBe(prod.webhook_key);
			await prodUntouched();

			const created = await createAppointment({ status: 'CONFIRMED' });
			const key = created.appointment_key;
			// The sandbox delivers the event to both URLs: one manual (test) run and one production run.
			const fresh = await pollUntil(
				'a manual and a production execution for the event',
				async () => {
					const l = (await executions(wf)).filter((e) => !seen.has(e.id));
					const done = l.every((e) => e.finished || e.status === 'success' || e.status === 'error');
					if (done && l.some((e) => e.mode === 'manual') && l.some((e) => e.mode === 'webhook')) return l;
					throw new Error(`new executions so far: ${JSON.stringify(l)}`);
				},
				{ timeoutMs: 60000 },
			);
			expect(fresh.map((e) => e.mode).sort()).toEqual(['manual', 'webhook']);
			// One email from each run.
			expect(await mailsMatching(2, (m) => m.text.includes(created.search_code), 'an email from each run')).toHaveLength(2);
			for (const e of fresh) {
				expect(e.status).toBe('success');
				const ex: any = await stack.api.ok('GET', `/api/v1/executions/${e.id}?includeData=true`);
				const items = nodeOutput(ex, node);
				expect(items).toHaveLength(1);
				expect(items[0].event).toBe('appointment.created');
				expect(items[0].data.appointment_key).toBe(key);
				expect(nodeOutput(ex, 'Email New Appointment')).toHaveLength(1);
			}
			const d: any = await stack.admin.ok('GET', `/__sandbox/deliveries/?appointment_key=${key}`);
			const okTo = (url: string) => d.deliveries.filter((x: any) => x.ok && x.url === url && x.event === 'appointment.created');
			expect(okTo(sub.url)).toHaveLength(1);
			expect(okTo(prod.url)).toHaveLength(1);
			await testSubscriptionRemoved(wf, 'the test subscription removed after the first event');
			const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
			expect(requests.filter((q: any) => q.method === 'DELETE' && String(q.path).includes(sub.webhook_key))).toHaveLength(1);
			await prodUntouched();

			// (b) Listening stopped without an event (the editor's stop button: DELETE /rest/test-webhook/:workflowId).
			const seen2 = new Set((await executions(wf)).map((e) => e.id));
			const sub2 = await listen(wf, node);
			expect(sub2.webhook_key).not.toBe(sub.webhook_key);
			await stack.rest.ok('DELETE', `/rest/test-webhook/${wf}`);
			await testSubscriptionRemoved(wf, 'the test subscription removed after stopping');
			// n8n no longer listens on the test URL.
			const probe = await stack.n8n.http.call('POST', new URL(sub2.url).pathname, { body: {} });
			expect(probe.status).toBe(404);
			expect((await executions(wf)).filter((e) => !seen2.has(e.id))).toEqual([]);
			await prodUntouched();
		} finally {
			await deactivate(stack.api, wf);
		}
		await pollUntil('the production subscription removed', async () => (ours(await subscriptions(), wf).length === 0 ? true : undefined));
		expect(await testSubscriptions(wf)).toEqual([]);
	});
});
