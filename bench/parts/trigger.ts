/**
 * Part 3: the built trigger's webhook() (validation + dedupe) against a bare JSON.parse of the same bodies, and the
 * dedupe memory after 1,000,000 distinct events (trigger-memory.ts).
 *
 * webhook() is called as n8n 2.41 calls it for a production webhook: per request a new Workflow (from the saved
 * workflow: events all three, default options, i.e. dedupe on event + key + timestamp, window 10,000) and a new
 * n8n-core WebhookContext, mode 'webhook', then `nodeType.webhook.call(ctx)`. n8n parses the request body before
 * webhook() runs. Loops over distinct realistic envelopes (~410 bytes; every call validates, misses the
 * dedupe memory, remembers its key and returns workflowData):
 *   node:  new Workflow + new WebhookContext + JSON.parse(body) + await webhook()
 *   plain: the same with the plainest trigger possible: our description (n8n resolves its parameters when it
 *          builds the Workflow), a webhook() that puts the body out as one item
 *   n8n:   new Workflow + new WebhookContext + JSON.parse(body)              (the same loop without any webhook())
 *   reads: n8n's loop + the n8n calls our webhook() makes (node, workflow, mode, body, response)
 *   bare:  JSON.parse(body)
 * The target is what our code adds: the rate of the node loop / the rate of the plain loop (>= 0.5: validation,
 * event filter and dedupe may at most double what n8n spends on a notification anyway). The same against a bare
 * parse, what n8n spends per request (n8n - bare) and our own logic are context rows: no trigger inside n8n can
 * approach a bare parse, since n8n builds a Workflow and a context for every request. CPU time, not wall time: rounds are short and a preemption by another
 * process in one round distorted the wall-time ratio. Rounds rotate the order of the loops on fresh bodies; the
 * median per-envelope time of each loop is taken.
 */
import type { INodeType, IWebhookFunctions } from 'n8n-workflow';
import { median, round, type PartContext, type Row } from '../lib/common';
import { requireBuilt } from '../lib/build';
import { medians, runRounds, spreadOf } from '../lib/rounds';
import {
	envelope,
	harness,
	plainTrigger,
	quietN8n,
	started,
	type Core,
	type TriggerBench,
	type WorkflowLib,
} from '../lib/trigger-harness';
import { memoryRow } from './trigger-memory';

type Loop = 'bare' | 'n8n' | 'reads' | 'plain' | 'node';

export async function runTriggerPart(ctx: PartContext): Promise<Row[]> {
	const t = loadTrigger(ctx);
	const rows = await throughputRows(ctx, t);
	rows.push(await memoryRow(ctx, t));
	return rows;
}

/**
 * The trigger as n8n runs it: the build (dist/), not the sources through tsx, whose esbuild keepNames wraps every
 * function made per request in a naming call the published code does not have.
 */
function loadTrigger(ctx: PartContext): TriggerBench {
	const triggerMod = requireBuilt<Record<string, new () => INodeType>>(
		ctx,
		'nodes/Appointments/AppointmentsTrigger.node.js',
	);
	const TriggerClass =
		triggerMod.AppointmentsTrigger ??
		Object.values(triggerMod).find((v) => typeof v === 'function');
	if (!TriggerClass)
		throw new Error('nodes/Appointments/AppointmentsTrigger.node exports no node class');
	const trigger = new TriggerClass();
	if (typeof trigger.webhook !== 'function')
		throw new Error('the trigger node has no webhook() method');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const workflowLib = require('n8n-workflow') as WorkflowLib;
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const core = require('n8n-core') as Core;
	quietN8n(workflowLib);
	return { trigger, core, workflowLib };
}

/** The five loops over one round's bodies; `sink` keeps the baselines' work from being optimised away. */
function envelopeLoops(
	{ trigger, core, workflowLib }: TriggerBench,
	sink: { value: number },
): Record<Loop, (bodies: string[]) => Promise<void>> {
	const h = harness(core, workflowLib, trigger, 'wf-throughput');
	const p = harness(core, workflowLib, plainTrigger(trigger), 'wf-plain');
	// Synchronous on purpose: the baselines pay no promise/microtask per envelope (the node's await is its cost).
	return {
		bare: async (bodies) => {
			for (let i = 0; i < bodies.length; i++) {
				sink.value += (
					JSON.parse(bodies[i]) as { data: { appointment_key: string } }
				).data.appointment_key.length;
			}
		},
		n8n: async (bodies) => {
			for (let i = 0; i < bodies.length; i++) {
				if (h.contextOnly() !== undefined)
					sink.value += (
						JSON.parse(bodies[i]) as { data: { appointment_key: string } }
					).data.appointment_key.length;
			}
		},
		// The n8n calls webhook() makes for every notification (node, workflow id, mode, body, response; the
		// parameters are read from the node as saved, see trigger/config.ts).
		reads: async (bodies) => {
			for (let i = 0; i < bodies.length; i++) {
				const c = h.contextOnly() as IWebhookFunctions;
				sink.value += (
					JSON.parse(bodies[i]) as { data: { appointment_key: string } }
				).data.appointment_key.length;
				sink.value +=
					c.getNode().name.length + String(c.getWorkflow().id).length + c.getMode().length;
				if (c.getBodyData() !== undefined) sink.value++;
				if (c.getResponseObject() !== undefined) sink.value++;
			}
		},
		plain: async (bodies) => {
			let ok = 0;
			for (let i = 0; i < bodies.length; i++) {
				if (started(await p.call(JSON.parse(bodies[i])))) ok++;
			}
			if (ok !== bodies.length)
				throw new Error(`the plain trigger started ${ok} of ${bodies.length} envelopes`);
		},
		node: async (bodies) => {
			let ok = 0;
			for (let i = 0; i < bodies.length; i++) {
				if (started(await h.call(JSON.parse(bodies[i])))) ok++;
			}
			if (ok !== bodies.length)
				throw new Error(`webhook() started ${ok} of ${bodies.length} distinct valid envelopes`);
		},
	};
}

/** CPU microseconds per envelope of each loop (wall time in the details). */
async function throughputRows(ctx: PartContext, t: TriggerBench): Promise<Row[]> {
	const perRound = ctx.smoke ? 2000 : 10000;
	const rounds = ctx.smoke ? 2 : 12;
	const sink = { value: 0 };
	const loops = envelopeLoops(t, sink);
	let seq = 0;
	let bodies: string[] = [];
	const loop = {
		contestants: ['bare', 'n8n', 'reads', 'plain', 'node'] as Loop[],
		before: () =>
			(bodies = Array.from({ length: perRound }, () => JSON.stringify(envelope(seq++, 'a')))),
		run: (loop: Loop) => loops[loop](bodies),
	};
	// Warm-up (JIT) of every loop, in the listed order, without a GC.
	await runRounds({ ...loop, rounds: 1, order: 'fixed', gc: false });
	const s = await runRounds({ ...loop, rounds });
	const perEnvelope = (ms: Record<Loop, number[]>) =>
		Object.fromEntries(
			Object.entries<number[]>(ms).map(([k, v]) => [k, v.map((x) => (x * 1000) / perRound)]),
		) as Record<Loop, number[]>;
	const cpuUs = perEnvelope(s.cpuMs);
	const wallUs = perEnvelope(s.wallMs);
	const us = medians(cpuUs);
	ctx.log(
		`part 3: per envelope (CPU): bare parse ${us.bare.toFixed(2)} us, n8n's new Workflow + context + parse ${us.n8n.toFixed(2)} us, ` +
			`+ webhook() ${us.node.toFixed(2)} us (the plainest trigger: ${us.plain.toFixed(2)} us); ours ${(us.node - us.n8n).toFixed(2)} us, of which n8n's node and body reads ${(us.reads - us.n8n).toFixed(2)} us; ` +
			`node / plain ${(us.plain / us.node).toFixed(3)}, (parse + ours) / parse ${(us.bare / (us.bare + us.node - us.n8n)).toFixed(3)} (sink ${sink.value % 7})`,
	);
	const details = {
		rounds,
		envelopesPerRound: perRound,
		cpuMicros: Object.fromEntries(
			Object.entries(cpuUs).map(([k, v]) => [k, v.map((x) => round(x, 2))]),
		),
		wallMicrosMedian: Object.fromEntries(
			Object.entries(wallUs).map(([k, v]) => [k, round(median(v), 3)]),
		),
	};
	const spread = spreadOf(cpuUs.plain.map((plain, i) => plain / cpuUs.node[i]));
	return rowsOf(us, Buffer.byteLength(JSON.stringify(envelope(1, 'a'))), details, spread);
}

function rowsOf(
	us: Record<Loop, number>,
	bodySize: number,
	samples: Record<string, unknown>,
	spread: string,
): Row[] {
	const { bare: parseUs, n8n: n8nUs, reads: readsUs, node: nodeUs, plain: plainUs } = us;
	const oursUs = nodeUs - n8nUs;
	const ownUs = nodeUs - readsUs;
	const ratio = plainUs / nodeUs;
	const perSecond = (x: number) => round(1e6 / x, 0);
	return [
		{
			part: 3,
			name: `Trigger: notifications per CPU second with a new n8n Workflow and context per request (as n8n 2.41 does), our webhook() (validate + event filter + dedupe) / the plainest webhook() (body out as one item, same description) (${bodySize} B bodies)`,
			value: perSecond(nodeUs),
			baseline: perSecond(plainUs),
			unit: '/s',
			ratio: round(ratio, 3),
			spread,
			target: '>= 0.5',
			met: ratio >= 0.5,
			details: {
				plainLoopMicros: round(plainUs, 3),
				measuredBy:
					'CPU time of the process per round (user + system); ours = (node loop - n8n loop)',
				bareParseMicros: round(parseUs, 3),
				n8nLoopMicros: round(n8nUs, 3),
				readsLoopMicros: round(readsUs, 3),
				nodeLoopMicros: round(nodeUs, 3),
				oursMicros: round(oursUs, 3),
				n8nReadsMicros: round(readsUs - n8nUs, 3),
				ownLogicMicros: round(ownUs, 3),
				...samples,
			},
		},
		{
			part: 3,
			name: 'Context: JSON.parse + our webhook() with its n8n calls (node loop - n8n loop) / bare JSON.parse',
			value: perSecond(parseUs + oursUs),
			baseline: perSecond(parseUs),
			unit: '/s',
			ratio: round(parseUs / (parseUs + oursUs), 3),
			details: { oursMicros: round(oursUs, 3) },
		},
		{
			part: 3,
			name: "Context: of that, our own logic (validate + dedupe + result), without n8n's parameter and node reads: JSON.parse + it / bare JSON.parse",
			value: perSecond(parseUs + ownUs),
			baseline: perSecond(parseUs),
			unit: '/s',
			ratio: round(parseUs / (parseUs + ownUs), 3),
			details: { ownLogicMicros: round(ownUs, 3), n8nReadsMicros: round(readsUs - n8nUs, 3) },
		},
		{
			part: 3,
			name: "Context: n8n's own work per request (new Workflow + WebhookContext), the node loop as a whole / bare JSON.parse",
			value: perSecond(nodeUs),
			baseline: perSecond(parseUs),
			unit: '/s',
			ratio: round(parseUs / nodeUs, 3),
			details: { n8nMicrosPerRequest: round(n8nUs - parseUs, 3), oursMicros: round(oursUs, 3) },
		},
	];
}
