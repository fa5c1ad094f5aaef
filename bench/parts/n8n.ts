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
import { cannon, type CannonResult } from '../lib/cannon';
import { runRounds } from '../lib/rounds';
import { chain, node, random, TRIGGER_TYPE, webhookNode } from '../lib/workflows';
import { DEV_DIR } from '../../scripts/paths';

type StackModule = typeof import('../../scripts/stack');
type Stack = Awaited<ReturnType<StackModule['startStack']>>;
type Contestant = 'ours' | 'theirs' | 'guarded';

async function startBenchStack(ctx: PartContext, part: number) {
	const stackMod = (await import('../../scripts/stack')) as StackModule;
	const proc = (await import('../../scripts/proc')) as typeof import('../../scripts/proc');
	proc.killAllOnSignals();
	const root = path.join(DEV_DIR, 'bench');
	if (fs.existsSync(root)) fs.rmSync(root, { recursive: true, force: true });
	const userFolder = path.join(root, `run-${Date.now()}`);
	ctx.log(`part ${part}: starting the stack (build, pack, install into n8n, sandbox, n8n)...`);
	const stack = await stackMod.startStack({
		userFolder,
		owner: {
			email: 'bench@example.com',
			password: 'Bench-Passw0rd',
			firstName: 'Bench',
			lastName: 'Owner',
		},
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
		const { urls, headers } = await publishWorkflows(stack, stackMod);
		ctx.log(`part 6: ours ${urls.ours}, theirs ${urls.theirs}`);
		return await measureRates(ctx, (which, seconds) =>
			cannon({
				url: urls[which],
				connections: 10,
				durationSec: seconds,
				envelopes: true,
				headers: headers[which],
			}),
		);
	} finally {
		await stack.stop();
		await proc.stopAll();
	}
}

/** Creates and activates A, B and C; returns their webhook URLs and the headers each request needs. */
async function publishWorkflows(stack: Stack, stackMod: StackModule) {
	const noop = () => node('Handle Event', 'n8n-nodes-base.noOp', 220);
	const triggerHookId = crypto.randomUUID();
	const trigger = node(
		'On Appointment Event',
		TRIGGER_TYPE,
		0,
		{ events: ['appointment.created', 'appointment.updated', 'appointment.canceled'], options: {} },
		{
			webhookId: triggerHookId,
			credentials: {
				appointmentsApi: { id: stackMod.CREDENTIAL_ID, name: stackMod.CREDENTIAL_NAME },
			},
		},
	);
	const ours = await stack.api.ok('POST', '/api/v1/workflows', {
		body: chain('Bench: Appointments Trigger', [trigger, noop()]),
	});
	const webhookPath = random('bench');
	const theirs = await stack.api.ok('POST', '/api/v1/workflows', {
		body: chain('Bench: n8n Webhook node', [
			webhookNode({ path: webhookPath, responseMode: 'onReceived' }),
			noop(),
		]),
	});
	// C: the Webhook node guarded by Header Auth - a webhook workflow that, like ours, carries a credential
	// (n8n checks a workflow's credentials before every execution: one more database query per request).
	const headerName = 'x-bench-auth';
	const headerValue = crypto.randomBytes(12).toString('hex');
	const cred = await stack.api.ok('POST', '/api/v1/credentials', {
		body: {
			name: 'Bench header auth',
			type: 'httpHeaderAuth',
			data: { name: headerName, value: headerValue },
		},
	});
	const guardedPath = random('bench-auth');
	const guardedHook = webhookNode(
		{ path: guardedPath, authentication: 'headerAuth', responseMode: 'onReceived' },
		{ credentials: { httpHeaderAuth: { id: cred.id, name: 'Bench header auth' } } },
	);
	const guarded = await stack.api.ok('POST', '/api/v1/workflows', {
		body: chain('Bench: n8n Webhook node with Header Auth', [guardedHook, noop()]),
	});
	for (const wf of [ours, theirs, guarded]) await stackMod.activate(stack.api, wf.id);

	// The trigger's callback URL is the one it registered at the sandbox on activation.
	const ourUrl = await pollUntil(
		'the trigger subscription at the sandbox',
		async () => {
			const b = await stack.admin.ok('GET', '/__sandbox/webhooks/');
			const subs = (Array.isArray(b) ? b : (b.webhooks ?? b.results ?? [])) as Array<{
				url: string;
			}>;
			return subs.find((s) => s.url.includes(triggerHookId))?.url;
		},
		30000,
		200,
	);
	const urls: Record<Contestant, string> = {
		ours: ourUrl,
		theirs: `${stack.n8n.url}/webhook/${webhookPath}`,
		guarded: `${stack.n8n.url}/webhook/${guardedPath}`,
	};
	const headers: Record<Contestant, Record<string, string>> = {
		ours: {},
		theirs: {},
		guarded: { [headerName]: headerValue },
	};
	return { urls, headers };
}

async function measureRates(
	ctx: PartContext,
	shoot: (which: Contestant, seconds: number) => Promise<CannonResult>,
): Promise<Row[]> {
	const duration = ctx.smoke ? 2 : 10;
	const rounds = ctx.smoke ? 1 : 3;
	const contestants: Contestant[] = ['ours', 'theirs', 'guarded'];
	// Warm-up of each (JIT, sqlite, connection pools); 3 s in --smoke too: on a loaded machine n8n answered none of
	// the trigger's first requests within 1 s, and a warm-up without an answer fails the part.
	for (const which of contestants) {
		const w = await shoot(which, 3);
		if (w.requestsTotal === 0 || w.non2xx > w.requestsTotal / 2) {
			throw new Error(
				`warm-up of ${which}: ${w.non2xx} non-2xx, ${w.errors} errors, ${w.timeouts} time-outs of ${w.requestsTotal} (${JSON.stringify(w.statusCodes)})`,
			);
		}
	}
	const raw: unknown[] = [];
	const s = await runRounds({
		contestants,
		rounds,
		gc: false,
		run: (which) => shoot(which, duration),
		after: (which, res) => {
			if (res.non2xx || res.errors) {
				throw new Error(
					`${which}: ${res.non2xx} non-2xx, ${res.errors} errors of ${res.requestsTotal} (${JSON.stringify(res.statusCodes)})`,
				);
			}
			raw.push({ which, ...res });
			ctx.log(
				`part 6: ${which} ${res.requestsPerSec.toFixed(0)} req/s (p50 ${res.latencyMedianMs} ms)`,
			);
		},
	});
	const [a, b, c] = contestants.map((which) => s.results[which].map((r) => r.requestsPerSec));
	const [ourRate, theirRate, guardedRate] = [median(a), median(b), median(c)];
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
			details: {
				durationSec: duration,
				rounds,
				ours: a.map((v) => round(v, 0)),
				guarded: c.map((v) => round(v, 0)),
				raw,
			},
		},
		{
			part: 6,
			name: 'Context: Appointments Trigger workflow / Webhook node workflow without credential',
			value: round(ourRate, 0),
			baseline: round(theirRate, 0),
			unit: 'req/s',
			ratio: round(ourRate / theirRate, 3),
			details: { theirs: b.map((v) => round(v, 0)) },
		},
	];
}
