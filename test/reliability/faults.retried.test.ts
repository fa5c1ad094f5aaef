/**
 * Every operation of the real Appointments action node (run in n8n-core's WorkflowExecute) against the sandbox
 * while the sandbox injects one fault over real HTTP: 429 with Retry-After in seconds and as an HTTP-date, 500, 502,
 * 503, connection resets and answers slower than the node's time-out (Advanced > Timeout). Each operation must end
 * with the right result after its retries; so must a Get Many over 20 pages whose page 7 fails once.
 *
 * The one home of these retry rules (429 in both forms, 503 on POST, resets, time-outs, page 7 of 20): they are
 * proved here, through the node, for every operation. Its Options reach the policy, its errors keep the transport's
 * message, continue-on-fail carries it and a spent budget is reported (faults.spent.test.ts), and the create of the
 * node never doubles a subscription (faults.creates.test.ts). The operations, fixture and sandbox: faults.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../helpers/n8n';
import { httpDateIn, TOKEN, visibleTexts, type TestSandbox } from './common';
import {
	CANCELED,
	OPERATIONS,
	out,
	ownSandbox,
	prepare,
	RESCHEDULE_TO,
	run,
	seen,
	useFaultSandbox,
	type Operation,
} from './faults';

// Every case runs on a sandbox of its own (faults, fixtures and request logs never meet), so the cases run at the
// same time (it.concurrent): their waits (Retry-After, back-off, time-outs) overlap instead of adding up.
useFaultSandbox();

/** Faults a retry must get through. `options` is the node's Advanced collection for that run. */
type Fault = {
	name: string;
	spec: () => Record<string, unknown>;
	options?: Record<string, unknown>;
	minMs?: number;
};
const FAULTS: Fault[] = [
	{
		name: '429 Retry-After: 1 (seconds)',
		spec: () => ({ status: 429, retryAfter: '1' }),
		minMs: 950,
	},
	{
		name: '429 Retry-After as an HTTP-date',
		spec: () => ({ status: 429, retryAfter: httpDateIn(1500) }),
		minMs: 1000,
	},
	{ name: '500', spec: () => ({ status: 500, body: { detail: 'boom' } }) },
	{ name: '502', spec: () => ({ status: 502 }) },
	{ name: '503', spec: () => ({ status: 503 }) },
	{ name: 'connection reset', spec: () => ({ reset: true }) },
];
/**
 * Run last, alone: its retried request must answer within the time-out, which the CPU of the other cases running
 * at the same time could overrun.
 */
const TIME_OUT: Fault = {
	name: 'answer slower than the time-out',
	spec: () => ({ delayMs: 1500 }),
	options: { timeoutSeconds: 0.5 },
};

/**
 * The mutations and single reads run at the same time (each fault matches only its operation's request); the two
 * lists run after them, since the create reads the webhook list before it retries and a reschedule reorders the
 * appointment list.
 */
const LISTS = ['webhook getAll', 'appointment getAll'];
function waves(): Operation[][] {
	return [
		OPERATIONS.filter((o) => !LISTS.includes(o.name)),
		OPERATIONS.filter((o) => LISTS.includes(o.name)),
	];
}

const EVERY_OPERATION = 'every operation ends with the right result, having sent its request again';
async function everyOperation(fault: Fault): Promise<void> {
	const sb = await ownSandbox();
	const f = await prepare(fault.name.replace(/\W+/g, '-'), sb);
	for (const wave of waves()) {
		await sb.clearRequests();
		for (const op of wave)
			await sb.fault({ count: 1, ...fault.spec(), match: { method: op.method, path: op.path(f) } });
		const started = Date.now();
		const results = await Promise.all(
			wave.map(async (op) => ({
				op,
				r: await run(
					{
						...op.parameters(f),
						advanced: { maxAttempts: 4, maxRetryWaitSeconds: 20, ...fault.options },
					},
					false,
					undefined,
					sb,
				),
			})),
		);
		const log = await sb.requests();
		for (const { op, r } of results) {
			if (r.error) throw new Error(`${op.name} under "${fault.name}" failed: ${r.error.message}`);
			await op.verify(f, out(r));
			const sent = log.filter((q) => q.method === op.method && q.path === op.path(f));
			// the failed attempt and the one that worked (a create that may have been stored is checked first);
			// a create that timed out is never sent again: the service may still store it, so the node watches
			// the list and adopts it
			const expected = op.method === 'POST' && fault.options?.timeoutSeconds ? 1 : 2;
			expect({ op: op.name, sent: sent.length }).toEqual({ op: op.name, sent: expected });
		}
		if (fault.minMs) expect(Date.now() - started).toBeGreaterThanOrEqual(fault.minMs);
	}
}

describe.each(FAULTS)('one fault: $name', (fault) => {
	it.concurrent(EVERY_OPERATION, () => everyOperation(fault));
});

describe('Get Many over 20 pages whose page 7 fails once', () => {
	it.concurrent.each([
		['500', { status: 500 }],
		['a reset', { reset: true }],
		['429 with Retry-After: 1', { status: 429, retryAfter: '1' }],
	])(
		'version 3, %s: Return All yields every appointment once, page 7 asked twice',
		async (_name, spec) => {
			const sb = await ownSandbox();
			await sb.reset(1000, 4); // 20 pages of the default 50
			await sb.clearRequests();
			await sb.fault({
				count: 1,
				...spec,
				match: { method: 'GET', path: '/api/v3/appointments/', query: { page: '7' } },
			});
			const r = await run(
				{
					resource: 'appointment',
					operation: 'getAll',
					returnAll: true,
					dateRange: 'all',
					filters: {},
					output: 'simple',
				},
				false,
				3,
				sb,
			);
			expect(r.error).toBeUndefined();
			const keys = out(r).map((a) => a.appointment_key ?? a.key);
			expect(keys).toHaveLength(1000);
			expect(new Set(keys).size).toBe(1000);
			const pages = (await sb.requests()).map((q) => String(q.query.page ?? '1'));
			expect(pages.filter((p) => p === '7')).toHaveLength(2);
			for (let p = 1; p <= 20; p++)
				if (p !== 7)
					expect({ page: p, asked: pages.filter((x) => x === String(p)).length }).toEqual({
						page: p,
						asked: 1,
					});
		},
	);
});

describe("version 4: the node's own retries only for what n8n's Retry On Fail cannot do", () => {
	const retryOnFail = { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 };
	const v4 = async (sb: TestSandbox, parameters: IDataObject, settings = {}) => {
		const r = await runNode({
			parameters,
			credentials: { baseUrl: sb.url, accessToken: TOKEN },
			nodeTypeVersion: 4,
			settings,
		});
		seen.push(...visibleTexts(r));
		return r;
	};

	it.concurrent.each([
		['a Get answered 500', 'get', 'GET', { status: 500 }],
		['an Update Status reset', 'updateStatus', 'PATCH', { reset: true }],
		['a Get answered 503 without Retry-After', 'get', 'GET', { status: 503 }],
	])(
		'%s every time: one request per try of Retry On Fail, not five',
		async (_n, operation, method, spec) => {
			const sb = await ownSandbox();
			const f = await prepare(`v4-${operation}-${method}`, sb);
			const key = operation === 'get' ? f.keys.get : f.keys.update;
			await sb.fault({
				count: 100,
				...spec,
				match: { method, path: `/api/v3/appointments/${key}/` },
			});
			const parameters = {
				resource: 'appointment',
				operation,
				appointmentKey: key,
				status: 'ATTENDED',
			};
			const r = await v4(sb, parameters, retryOnFail);
			expect(r.error?.message).not.toMatch(/attempts/);
			expect((await sb.requests()).filter((q) => q.method === method)).toHaveLength(3);
		},
	);

	it.concurrent(
		'a 429 with Retry-After is waited out and sent again, without Retry On Fail',
		async () => {
			const sb = await ownSandbox();
			const f = await prepare('v4-429', sb);
			const path = `/api/v3/appointments/${f.keys.update}/`;
			await sb.fault({ count: 1, status: 429, retryAfter: '1', match: { method: 'PATCH', path } });
			const parameters = {
				resource: 'appointment',
				operation: 'updateStatus',
				appointmentKey: f.keys.update,
				status: 'ATTENDED',
			};
			const r = await v4(sb, parameters);
			expect(r.error).toBeUndefined();
			expect(
				(await sb.requests()).filter((q) => q.method === 'PATCH').map((q) => q.status),
			).toEqual([429, 200]);
		},
	);

	it.concurrent(
		'a Cancel whose answer was lost is checked, not sent again: one DELETE, one e-mail',
		async () => {
			const sb = await ownSandbox();
			const f = await prepare('v4-cancel', sb);
			const path = `/api/v3/appointments/${f.keys.cancel}/`;
			await sb.fault({ count: 1, status: 500, phase: 'after', match: { method: 'DELETE', path } });
			const parameters = {
				resource: 'appointment',
				operation: 'cancel',
				appointmentKey: f.keys.cancel,
				sendEmail: true,
			};
			const r = await v4(sb, parameters);
			expect(r.error).toBeUndefined();
			expect((await sb.requests()).map((q) => q.method)).toEqual(['GET', 'DELETE', 'GET']);
			expect((await sb.emails()).filter((e) => e.appointment_key === f.keys.cancel)).toHaveLength(
				1,
			);
		},
	);

	it.concurrent(
		'a Cancel refused before it was processed is sent again by Retry On Fail, after a read',
		async () => {
			const sb = await ownSandbox();
			const f = await prepare('v4-cancel-502', sb);
			const path = `/api/v3/appointments/${f.keys.cancel}/`;
			await sb.fault({ count: 1, status: 502, match: { method: 'DELETE', path } });
			const parameters = {
				resource: 'appointment',
				operation: 'cancel',
				appointmentKey: f.keys.cancel,
				sendEmail: true,
			};
			const r = await v4(sb, parameters, retryOnFail);
			expect(r.error).toBeUndefined();
			expect((await sb.requests()).map((q) => `${q.method} ${q.status}`)).toEqual([
				'GET 200',
				'DELETE 502',
				'GET 200',
				'GET 200',
				'DELETE 200',
			]);
			expect((await sb.emails()).filter((e) => e.appointment_key === f.keys.cancel)).toHaveLength(
				1,
			);
		},
	);

	it.concurrent(
		'a Webhook Delete whose answer was lost is checked against the list: deleted, once',
		async () => {
			const sb = await ownSandbox();
			const f = await prepare('v4-wdelete', sb);
			const path = `/api/v3/webhooks/${f.webhooks.del}/`;
			await sb.fault({ count: 1, status: 500, phase: 'after', match: { method: 'DELETE', path } });
			const parameters = { resource: 'webhook', operation: 'delete', webhookKey: f.webhooks.del };
			const r = await v4(sb, parameters, retryOnFail);
			expect(r.error).toBeUndefined();
			expect(out(r)).toEqual([expect.objectContaining({ deleted: true })]);
			expect((await sb.requests()).filter((q) => q.method === 'DELETE')).toHaveLength(1);
			expect((await sb.webhooks()).map((w) => w.webhook_key)).not.toContain(f.webhooks.del);
		},
	);

	it.concurrent(
		'Get Many over 20 pages whose page 7 answers 500 once: the re-run returns every appointment once',
		async () => {
			const sb = await ownSandbox();
			await sb.reset(1000, 4);
			const query = { page: '7' };
			await sb.fault({
				count: 1,
				status: 500,
				match: { method: 'GET', path: '/api/v3/appointments/', query },
			});
			const parameters = {
				resource: 'appointment',
				operation: 'getAll',
				returnAll: true,
				dateRange: 'all',
				filters: {},
				output: 'simple',
			};
			const r = await v4(sb, parameters, retryOnFail);
			expect(r.error).toBeUndefined();
			const keys = out(r).map((a) => a.appointment_key);
			expect(keys).toHaveLength(1000);
			expect(new Set(keys).size).toBe(1000);
		},
	);
});

describe("version 4 under n8n's Retry On Fail: what the first try completed is not sent again", () => {
	const WRITES: Array<[string, Record<string, unknown>, string, string]> = [
		['updateStatus', { status: 'ATTENDED' }, 'PATCH', ''],
		['reschedule', { startDate: RESCHEDULE_TO }, 'PATCH', 'reschedule/'],
		['cancel', { sendEmail: true }, 'DELETE', ''],
	];
	it.concurrent.each(WRITES)(
		'%s of two items, the second refused once: the first is sent once, the second again',
		async (operation, fields, method, suffix) => {
			const sb = await ownSandbox();
			const f = await prepare(`rof-${operation}`, sb);
			const [first, second] = [f.keys.update, f.keys.reschedule];
			const path = (key: string) => `/api/v3/appointments/${key}/${suffix}`;
			await sb.admin('DELETE', '/__sandbox/emails/');
			// a 409 is not retried by the node itself: the first try fails and n8n runs the node again
			await sb.fault({
				count: 1,
				status: 409,
				body: { detail: 'busy' },
				match: { method, path: path(second) },
			});
			const r = await runNode({
				parameters: {
					resource: 'appointment',
					operation,
					appointmentKey: '={{ $json.key }}',
					...fields,
				},
				credentials: { baseUrl: sb.url, accessToken: TOKEN },
				input: [{ key: first }, { key: second }],
				settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 10 }, // n8n reads 0 as its default of 1 s
			});
			seen.push(...visibleTexts(r));
			expect(r.error).toBeUndefined();
			expect(out(r).map((a) => a.appointment_key)).toEqual([first, second]);
			const log = await sb.requests();
			const refused = log.findIndex((q) => q.status === 409);
			const about = (key: string) => (q: { path: string }) =>
				q.path.startsWith(`/api/v3/appointments/${key}/`);
			// nothing about the first item after the refusal (n8n's re-run adopts its result); the second one sent again
			expect(log.slice(refused + 1).filter(about(first))).toEqual([]);
			expect(
				log.filter((q) => q.method === method && q.path === path(second)).map((q) => q.status),
			).toEqual([409, 200]);
			if (operation === 'cancel') {
				for (const key of [first, second])
					expect(CANCELED).toContain((await sb.appointment(key)).status);
				expect(
					(await sb.emails()).filter((e) => [first, second].includes(e.appointment_key)),
				).toHaveLength(2);
			}
		},
	);

	/**
	 * `batches` executions at the same time, each an Update Status of `size` items whose item `failing` is refused
	 * once (a 409, which the node does not retry itself): n8n's Retry On Fail runs each again, and no write an
	 * execution completed is sent twice, whatever the batch size and whatever the other executions keep.
	 */
	async function batchesUnderRetryOnFail(batches: number, size: number, failing: number) {
		const sb = await ownSandbox();
		await sb.reset(Math.ceil(batches * size * 1.6), 5);
		const open = (await sb.allAppointments())
			.filter((a) => !CANCELED.includes(a.status) && a.status !== 'ATTENDED')
			.map((a) => String(a.appointment_key));
		expect(open.length).toBeGreaterThanOrEqual(batches * size);
		const keys = Array.from({ length: batches }, (_, b) => open.slice(b * size, (b + 1) * size));
		const path = (key: string) => `/api/v3/appointments/${key}/`;
		await sb.clearRequests();
		for (const batch of keys)
			await sb.fault({
				count: 1,
				status: 409,
				match: { method: 'PATCH', path: path(batch[failing]) },
			});
		const runs = await Promise.all(
			keys.map(
				async (batch) =>
					await runNode({
						parameters: {
							resource: 'appointment',
							operation: 'updateStatus',
							appointmentKey: '={{ $json.key }}',
							status: 'ATTENDED',
							advanced: { concurrency: 10 },
						},
						credentials: { baseUrl: sb.url, accessToken: TOKEN },
						input: batch.map((key) => ({ key })),
						settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 10 },
					}),
			),
		);
		const patches = (await sb.requests()).filter((q) => q.method === 'PATCH');
		const sentTo = new Map<string, Array<number | null>>();
		for (const q of patches) sentTo.set(q.path, [...(sentTo.get(q.path) ?? []), q.status]);
		runs.forEach((r, b) => {
			expect(r.error).toBeUndefined();
			expect(out(r).map((a) => [a.appointment_key, a.status])).toEqual(
				keys[b].map((key) => [key, 'ATTENDED']),
			);
			const twice = keys[b].filter(
				(key, i) => i !== failing && sentTo.get(path(key))?.length !== 1,
			);
			expect({ batch: b, completedWritesSentAgain: twice.length }).toEqual({
				batch: b,
				completedWritesSentAgain: 0,
			});
			expect(sentTo.get(path(keys[b][failing]))).toEqual([409, 200]);
		});
		expect(patches).toHaveLength(batches * (size + 1));
	}

	it('1,500 items whose item 1,400 is refused once: the re-run sends only that one again', async () => {
		await batchesUnderRetryOnFail(1, 1500, 1399);
	}, 300_000);

	it('two executions at the same time keep their own memories: neither re-run sends again what it completed', async () => {
		await batchesUnderRetryOnFail(2, 600, 550);
	}, 300_000);
});

// the last test of the file: the concurrent ones above have ended when it starts
describe(`one fault: ${TIME_OUT.name}`, () => {
	it(EVERY_OPERATION, () => everyOperation(TIME_OUT));
});
