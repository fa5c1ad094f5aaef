/**
 * Part 6 (--n8n): a real n8n 2.41.1 (scripts/stack.ts: https on localhost, our package installed from its
 * tarball, sandbox on loopback). Three workflows with the same shape, all active:
 *   A: Appointments Trigger (all three events, default options) -> No Operation
 *   B: n8n's Webhook node (POST, respond immediately)            -> No Operation
 *   C: B with Header Auth (a credential, as A has)
 * autocannon (child process, 10 connections) POSTs a distinct realistic envelope per request (fresh
 * appointment_key and timestamp, so the trigger's dedupe never drops one) to each webhook URL, alternating
 * in rotation after a warm-up; the median requests/s of A / that of C is the figure (target >= 0.9), A / B is context. Executions
 * are saved for both as the stack configures n8n. Only 2xx answers count.
 * Part 8 (--n8n, runN8nListPart): Get Many against the do-it-yourself route in a stack of its own (n8n-list.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { median, pollUntil, round, type PartContext, type Row } from '../lib/common';
import { cannon } from '../lib/cannon';
import { DEV_DIR } from '../../scripts/paths';

const TRIGGER_TYPE = 'n8n-nodes-appointments.appointmentsTrigger';

async function startBenchStack(ctx: PartContext, part: number) {
	const stackMod = (await import('../../scripts/stack')) as typeof import('../../scripts/stack');
	const proc = (await import('../../scripts/proc')) as typeof import('../../scripts/proc');
	proc.killAllOnSignals();
	const root = path.join(DEV_DIR, 'bench');
	if (fs.existsSync(root)) fs.rmSync(root, { recursive: true, force: true });
	const userFolder = path.join(root, `run-${Date.now()}`);
	ctx.log(`part ${part}: starting the stack (build, pack, install into n8n, sandbox, n8n)...`);
	const stack = await stackMod.startStack({
		userFolder,
		owner: { email: 'bench@example.com', password: 'Bench-Passw0rd', firstName: 'Bench', lastName: 'Owner' },
		reimport: 'always',
		log: (m) => ctx.log(`part ${part}: ${m}`),
	});
	return { stack, stackMod, proc };
}

/** Part 8: Get Many against HTTP Request pagination + Split Out, in a real n8n of its own. */
export async function runN8nListPart(ctx: PartContext): Promise<Row[]> {
	const { stack, stackMod, proc } = await startBenchStack(ctx, 7);
	try {
		return await (await import('./n8n-list')).runN8nListPart(ctx, stack, stackMod);
	} finally {
		await stack.stop();
		await proc.stopAll();
	}
}

export async function runN8nPart(ctx: PartContext): Promise<Row[]> {
	const { stack, stackMod, proc } = await startBenchStack(ctx, 6);
	try {
		const noop = (x: number) => ({
			parameters: {},
			id: crypto.randomUUID(),
			name: 'Handle Event',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [x, 0],
		});
		const triggerHookId = crypto.randomUUID();
		const ours = await stack.api.ok('POST', '/api/v1/workflows', {
			body: {
				name: 'Bench: Appointments Trigger',
				nodes: [
					{
						parameters: { events: ['appointment.created', 'appointment.updated', 'appointment.canceled'], options: {} },
						id: crypto.randomUUID(),
						name: 'On Appointment Event',
						type: TRIGGER_TYPE,
						typeVersion: 1,
						position: [0, 0],
						webhookId: triggerHookId,
						credentials: { appointmentsApi: { id: stackMod.CREDENTIAL_ID, name: stackMod.CREDENTIAL_NAME } },
					},
					noop(220),
				],
				connections: { 'On Appointment Event': { main: [[{ node: 'Handle Event', type: 'main', index: 0 }]] } },
				settings: { executionOrder: 'v1' },
			},
		});
		const webhookPath = `bench-${crypto.randomBytes(4).toString('hex')}`;
		const theirs = await stack.api.ok('POST', '/api/v1/workflows', {
			body: {
				name: 'Bench: n8n Webhook node',
				nodes: [
					{
						parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
						id: crypto.randomUUID(),
						name: 'Webhook',
						type: 'n8n-nodes-base.webhook',
						typeVersion: 2,
						position: [0, 0],
						webhookId: crypto.randomUUID(),
					},
					noop(220),
				],
				connections: { Webhook: { main: [[{ node: 'Handle Event', type: 'main', index: 0 }]] } },
				settings: { executionOrder: 'v1' },
			},
		});
		// C: the Webhook node guarded by Header Auth - a webhook workflow that, like ours, carries a credential
		// (n8n checks a workflow's credentials before every execution: one more database query per request).
		const headerName = 'x-bench-auth';
		const headerValue = crypto.randomBytes(12).toString('hex');
		const cred = await stack.api.ok('POST', '/api/v1/credentials', {
			body: { name: 'Bench header auth', type: 'httpHeaderAuth', data: { name: headerName, value: headerValue } },
		});
		const guardedPath = `bench-auth-${crypto.randomBytes(4).toString('hex')}`;
		const guarded = await stack.api.ok('POST', '/api/v1/workflows', {
			body: {
				name: 'Bench: n8n Webhook node with Header Auth',
				nodes: [
					{
						parameters: { httpMethod: 'POST', path: guardedPath, authentication: 'headerAuth', responseMode: 'onReceived', options: {} },
						id: crypto.randomUUID(),
						name: 'Webhook',
						type: 'n8n-nodes-base.webhook',
						typeVersion: 2,
						position: [0, 0],
						webhookId: crypto.randomUUID(),
						credentials: { httpHeaderAuth: { id: cred.id, name: 'Bench header auth' } },
					},
					noop(220),
				],
				connections: { Webhook: { main: [[{ node: 'Handle Event', type: 'main', index: 0 }]] } },
				settings: { executionOrder: 'v1' },
			},
		});
		await stackMod.activate(stack.api, ours.id);
		await stackMod.activate(stack.api, theirs.id);
		await stackMod.activate(stack.api, guarded.id);

		// The trigger's callback URL is the one it registered at the sandbox on activation.
		const ourUrl = await pollUntil(
			'the trigger subscription at the sandbox',
			async () => {
				const b = await stack.admin.ok('GET', '/__sandbox/webhooks/');
				const subs = (Array.isArray(b) ? b : (b.webhooks ?? b.results ?? [])) as Array<{ url: string }>;
				return subs.find((s) => s.url.includes(triggerHookId))?.url;
			},
			30000,
			200,
		);
		const theirUrl = `${stack.n8n.url}/webhook/${webhookPath}`;
		ctx.log(`part 6: ours ${ourUrl}, theirs ${theirUrl}`);

		const duration = ctx.smoke ? 2 : 10;
		const rounds = ctx.smoke ? 1 : 3;
		const guardedUrl = `${stack.n8n.url}/webhook/${guardedPath}`;
		const shoot = (url: string, seconds: number) =>
			cannon({
				url,
				connections: 10,
				durationSec: seconds,
				envelopes: true,
				headers: url === guardedUrl ? { [headerName]: headerValue } : {},
			});
		// Warm-up of each (JIT, sqlite, connection pools).
		for (const url of [ourUrl, theirUrl, guardedUrl]) {
			const w = await shoot(url, ctx.smoke ? 1 : 3);
			if (w.requestsTotal === 0 || w.non2xx > w.requestsTotal / 2) {
				throw new Error(`warm-up of ${url}: ${w.non2xx} non-2xx of ${w.requestsTotal} (${JSON.stringify(w.statusCodes)})`);
			}
		}
		const a: number[] = [];
		const b: number[] = [];
		const c: number[] = [];
		const raw: unknown[] = [];
		const order = ['ours', 'theirs', 'guarded'] as const;
		for (let r = 0; r < rounds; r++) {
			for (let k = 0; k < order.length; k++) {
				const which = order[(r + k) % order.length];
				const res = await shoot(which === 'ours' ? ourUrl : which === 'theirs' ? theirUrl : guardedUrl, duration);
				if (res.non2xx || res.errors) {
					throw new Error(`${which}: ${res.non2xx} non-2xx, ${res.errors} errors of ${res.requestsTotal} (${JSON.stringify(res.statusCodes)})`);
				}
				(which === 'ours' ? a : which === 'theirs' ? b : c).push(res.requestsPerSec);
				raw.push({ which, ...res });
				ctx.log(`part 6: ${which} ${res.requestsPerSec.toFixed(0)} req/s (p50 ${res.latencyMedianMs} ms)`);
			}
		}
		const ourRate = median(a);
		const theirRate = median(b);
		const ratio = ourRate / theirRate;
		const guardedRate = median(c);
		// The target compares like with like: n8n checks the credentials of every workflow that carries one before
		// each execution (and skips the expression isolate only for its own uncredentialed Webhook node), so the
		// Webhook node with Header Auth is the peer; the bare Webhook node is context.
		return [
			{
				part: 6,
				name: 'Real n8n: webhook requests/s, Appointments Trigger workflow / Webhook node workflow with Header Auth (also a credential) (autocannon, 10 conn.)',
				value: round(ourRate, 0),
				baseline: round(guardedRate, 0),
				unit: 'req/s',
				ratio: round(ourRate / guardedRate, 3),
				target: '>= 0.9',
				met: ourRate / guardedRate >= 0.9,
				details: { durationSec: duration, rounds, ours: a.map((v) => round(v, 0)), guarded: c.map((v) => round(v, 0)), raw },
			},
			{
				part: 6,
				name: 'Context: Appointments Trigger workflow / Webhook node workflow without credential',
				value: round(ourRate, 0),
				baseline: round(theirRate, 0),
				unit: 'req/s',
				ratio: round(ratio, 3),
				details: { theirs: b.map((v) => round(v, 0)) },
			},
		];
	} finally {
		await stack.stop();
		await proc.stopAll();
	}
}
