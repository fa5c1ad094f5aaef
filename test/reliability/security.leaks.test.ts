/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any -- test code, never shipped: it starts servers, reads the environment and handles arbitrary JSON from the sandbox and run data */
/**
 * The access token never shows up in run data, output items, error messages, error descriptions, stacks or logs,
 * for any operation of the action node, succeeding or failing (bad input, 4xx, 5xx, resets, time-outs), nor from the
 * trigger. (Other security properties: security.origins.test.ts, security.refusals.test.ts.)
 */
import { capturedLogs } from '../helpers/n8n';
import { pollUntil, startTriggerHarness } from '../helpers/trigger';
import { FULL, LIMITED, TestSandbox, TOKEN, visibleTexts } from './common';
import { nodeRunner, startSecuritySandbox } from './security';

let sb: TestSandbox;
beforeAll(async () => {
	sb = await startSecuritySandbox();
});

afterAll(async () => {
	await sb?.close();
});
const { secrets, seen, run } = nodeRunner(() => sb);

// Under npm test each operation runs once per fault, with or without continue-on-fail by turns (which one first
// follows the seed), so every operation and every fault is seen both ways; npm run test:chaos runs both always.
const SEED = process.env.FC_SEED
	? Number(process.env.FC_SEED)
	: Math.floor(Math.random() * 2 ** 31);
beforeAll(() =>
	console.log(
		`token-leak sweep: FC_SEED=${SEED} replays this run${FULL ? '' : ' (CHAOS_FULL=1 runs every combination)'}`,
	),
);
const continueOnFailCases = (fault: number, op: number): boolean[] =>
	FULL ? [false, true] : [(fault + op + SEED) % 2 === 1];

/** The operations of the sweep, on the appointments and webhook of `box`: succeeding, refused, bad input, 404s. */
async function sweepOps(box: TestSandbox): Promise<Array<Record<string, unknown>>> {
	await box.reset(40, 5);
	const [a, b, c] = (await box.allAppointments()).filter(
		(x) => !String(x.status).startsWith('CANCELED'),
	);
	const hook = (
		await box.api('POST', 'webhooks/', {
			url: 'https://hooks.test/leak',
			events: ['appointment.created'],
		})
	).body;
	return [
		{
			resource: 'appointment',
			operation: 'getAll',
			returnAll: true,
			dateRange: 'all',
			filters: { status: 'CONFIRMED' },
			output: 'simple',
		},
		{
			resource: 'appointment',
			operation: 'getAll',
			returnAll: false,
			limit: 3,
			dateRange: 'custom',
			startDate: '2026-01-01T00:00:00',
			endDate: '2027-01-01T00:00:00',
			filters: {},
			output: 'raw',
		},
		{ resource: 'appointment', operation: 'get', appointmentKey: a.appointment_key },
		{
			resource: 'appointment',
			operation: 'get',
			appointmentKey: '00000000-0000-4000-8000-000000000000',
		}, // 404
		{ resource: 'appointment', operation: 'get', appointmentKey: '={{ "" }}' }, // bad input
		{
			resource: 'appointment',
			operation: 'updateStatus',
			appointmentKey: a.appointment_key,
			status: 'ATTENDED',
		},
		{
			resource: 'appointment',
			operation: 'updateStatus',
			appointmentKey: a.appointment_key,
			status: 'NOT_A_STATUS',
		},
		{
			resource: 'appointment',
			operation: 'reschedule',
			appointmentKey: b.appointment_key,
			startDate: '2030-05-06T07:08:09+02:00',
		},
		{
			resource: 'appointment',
			operation: 'reschedule',
			appointmentKey: b.appointment_key,
			startDate: 'yesterday-ish',
		},
		{
			resource: 'appointment',
			operation: 'cancel',
			appointmentKey: c.appointment_key,
			sendEmail: false,
		},
		{ resource: 'webhook', operation: 'getAll', returnAll: true },
		{
			resource: 'webhook',
			operation: 'create',
			url: 'https://hooks.test/leak2',
			events: ['appointment.updated'],
			otherEvents: 'appointment.moved',
		}, // 400 from the service (unknown event)
		{
			resource: 'webhook',
			operation: 'create',
			url: 'http://hooks.test/leak3',
			events: ['appointment.updated'],
			otherEvents: '',
		},
		{
			resource: 'webhook',
			operation: 'update',
			webhookKey: hook.webhook_key,
			url: 'https://hooks.test/leak4',
			events: ['appointment.canceled'],
			otherEvents: '',
		},
		{
			resource: 'webhook',
			operation: 'update',
			webhookKey: 'no-such-webhook',
			url: 'https://hooks.test/leak5',
			events: ['appointment.canceled'],
			otherEvents: '',
		},
		{ resource: 'webhook', operation: 'delete', webhookKey: hook.webhook_key },
		{ resource: 'webhook', operation: 'delete', webhookKey: hook.webhook_key }, // 404 now
	];
}

// The two tests, and the sweeps of the first, run at the same time, each on a sandbox of its own (closed with the
// file's): their waits (back-offs, mostly) overlap instead of adding up.
const boxes: TestSandbox[] = [];
afterAll(async () => {
	await Promise.all(boxes.map((box) => box.close()));
});
async function ownSandbox(): Promise<TestSandbox> {
	const box = await startSecuritySandbox();
	boxes.push(box);
	return box;
}

describe('the access token never leaks', () => {
	it.concurrent(
		'across every operation, succeeding and failing, with and without continue-on-fail',
		async () => {
			const faults: Array<Record<string, unknown> | undefined> = [
				undefined,
				{ count: 100, status: 502, body: { detail: 'upstream broke' } },
				{ count: 100, status: 429, retryAfter: '600' },
				{ count: 100, reset: true },
				{ count: 100, status: 400, body: { detail: 'bad', token: 'echo' } },
			];
			let failures = 0;
			const underFault = async (f: number, fault: Record<string, unknown> | undefined) => {
				const on = await ownSandbox();
				const ops = await sweepOps(on);
				const runOp = async (o: number) => {
					for (const continueOnFail of continueOnFailCases(f, o)) {
						const r = await run(
							{ ...ops[o], advanced: { maxAttempts: 2, maxRetryWaitSeconds: 2 } },
							{ continueOnFail, nodeTypeVersion: 3, on },
						);
						if (r.error || JSON.stringify(r.items).includes('"error"')) failures++;
					}
				};
				// without a fault in order (the update before the delete, the delete before its 404); under one every
				// request fails whatever the order, so the operations run at the same time
				if (!fault) for (const o of ops.keys()) await runOp(o);
				else {
					await on.fault({ ...fault, match: {} });
					await Promise.all([...ops.keys()].map(runOp));
				}
			};
			// with a token the service does not know, and with the restricted one (403 on webhooks)
			const withOtherTokens = async () => {
				const on = await ownSandbox();
				const ops = await sweepOps(on);
				for (const token of ['wrong-token-0a9b8c7d6e', LIMITED]) {
					for (const parameters of ops)
						await run(
							{ ...parameters, advanced: { maxAttempts: 1 } },
							{ token, continueOnFail: true, nodeTypeVersion: 3, on },
						);
				}
			};
			// a slow answer that times out
			const timedOut = async () => {
				const ops = await sweepOps(sb);
				await sb.fault({ count: 2, delayMs: 2500, match: {} });
				await run({ ...ops[2], advanced: { maxAttempts: 2, timeoutSeconds: 1 } });
			};
			await Promise.all([
				...faults.map((fault, f) => underFault(f, fault)),
				withOtherTokens(),
				timedOut(),
			]);
			await sb.clearFaults();
			expect(failures).toBeGreaterThan(40); // the sweep did look at failures, not only successes
			const everything = [...seen, ...capturedLogs()];
			expect(everything.length).toBeGreaterThan(300);
			for (const secret of secrets) {
				const hits = everything.filter(
					(t) => t.includes(secret) || t.includes(encodeURIComponent(secret)),
				);
				expect({
					secret: secret.slice(0, 4) + '…',
					hits: hits.map((h) => h.slice(0, 300)),
				}).toEqual({ secret: secret.slice(0, 4) + '…', hits: [] });
			}
		},
	);
});

describe('the access token never leaks from the trigger', () => {
	it.concurrent(
		'through activation (also failing), deliveries, a failing re-read, deactivation (also failing)',
		async () => {
			const sb = await ownSandbox();
			const texts: string[] = [];
			const keep = (e: unknown) => texts.push(...visibleTexts({ error: e as Error }));
			const WRONG = 'wrong-trigger-token-6c1d';
			secrets.add(WRONG);
			// a token the service refuses: activation fails with a message, never the token
			const refused = await startTriggerHarness({
				credentials: { baseUrl: sb.url, accessToken: WRONG },
				parameters: { events: ['appointment.created'], otherEvents: '', options: {} },
			});
			await expect(refused.activate()).rejects.toThrow(/access token/);
			await refused.activate().catch(keep);
			texts.push(...refused.logs());
			await refused.close();

			const h = await startTriggerHarness({
				credentials: { baseUrl: sb.url, accessToken: TOKEN },
				parameters: {
					events: ['appointment.created', 'appointment.canceled'],
					otherEvents: '',
					options: { verifyWithApi: true },
				},
			});
			try {
				await sb.fault({
					count: 2,
					status: 503,
					match: { method: 'POST', path: '/api/v3/webhooks/' },
				});
				await h.activate();
				// a delivered event is re-read with the token; one re-read fails for good (the service redelivers)
				await sb.fault({
					count: 6,
					status: 502,
					body: { detail: 'upstream broke' },
					match: { method: 'GET', path: '/api/v3/appointments/*' },
				});
				await sb.admin('POST', '/__sandbox/appointments/', {});
				await sb.admin('POST', '/__sandbox/appointments/', {});
				await pollUntil('two workflow starts', () => h.starts.length >= 2, { timeoutMs: 20000 });
				await sb.fault({
					count: 10,
					status: 500,
					match: { method: 'DELETE', path: '/api/v3/webhooks/*' },
				});
				await h.deactivate().catch(keep);
				await sb.clearFaults();
				await h.deactivate();
				expect(h.errors.length).toBeGreaterThan(0); // the failed re-read was raised (answered 500)
				for (const e of h.errors) keep(e);
				texts.push(
					...h.logs(),
					JSON.stringify(h.starts),
					JSON.stringify(h.responses),
					JSON.stringify(h.staticData()),
				);
			} finally {
				await h.close();
			}
			expect(texts.length).toBeGreaterThan(20);
			for (const secret of [TOKEN, WRONG]) {
				const hits = texts.filter((t) => t.includes(secret));
				expect({
					secret: secret.slice(0, 4) + '…',
					hits: hits.map((x) => x.slice(0, 300)),
				}).toEqual({ secret: secret.slice(0, 4) + '…', hits: [] });
			}
		},
	);
});
