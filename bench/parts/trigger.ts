/**
 * Part 3: the trigger's webhook() (validation + dedupe) against a bare JSON.parse of the same bodies, and the
 * dedupe memory after 1,000,000 distinct events.
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
 *
 * Memory: one workflow and context (reused, to keep the run short), default window; GC + heapUsed before any event, after 2 x window events (memory full)
 * and after 1,000,000 distinct events. The dedupe store of the scope must hold exactly `window` keys and the heap
 * must not grow between the second and third measurement (< 2 MB); (full - before) / window is the memory per
 * remembered key.
 */
import type { INodeType, IWebhookFunctions } from 'n8n-workflow';
import { median, requireProjectFile, round, type PartContext, type Row } from '../lib/common';
import { gc } from '../lib/node';
import { envelope, harness, plainTrigger, quietN8n, started, type Core, type WorkflowLib } from '../lib/trigger-harness';

export async function runTriggerPart(ctx: PartContext): Promise<Row[]> {
	const triggerMod = requireProjectFile<Record<string, new () => INodeType>>(
		'nodes/Appointments/AppointmentsTrigger.node',
		'The trigger node',
	);
	const TriggerClass = triggerMod.AppointmentsTrigger ?? Object.values(triggerMod).find((v) => typeof v === 'function');
	if (!TriggerClass) throw new Error('nodes/Appointments/AppointmentsTrigger.node exports no node class');
	const trigger = new TriggerClass();
	if (typeof trigger.webhook !== 'function') throw new Error('the trigger node has no webhook() method');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const workflowLib = require('n8n-workflow') as WorkflowLib;
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const core = require('n8n-core') as Core;
	quietN8n(workflowLib);
	const dedupe = requireProjectFile<{
		recentKeysFor: (scope: string, limit: number) => { size: number; limit: number };
		DEFAULT_WINDOW: number;
		scopeCount: () => number;
	}>('nodes/Appointments/trigger/dedupe', 'The trigger dedupe module');

	const rows: Row[] = [];
	const perRound = ctx.smoke ? 2000 : 10000;
	const rounds = ctx.smoke ? 2 : 12;
	const h = harness(core, workflowLib, trigger, 'wf-throughput');
	const p = harness(core, workflowLib, plainTrigger(trigger), 'wf-plain');

	// ---- throughput: CPU microseconds per envelope of each loop (wall time in the details)
	let seq = 0;
	const freshBodies = () => Array.from({ length: perRound }, () => JSON.stringify(envelope(seq++, 'a')));
	let sink = 0;
	type Loop = 'bare' | 'n8n' | 'reads' | 'plain' | 'node';
	const cpuUs: Record<Loop, number[]> = { bare: [], n8n: [], reads: [], plain: [], node: [] };
	const wallUs: Record<Loop, number[]> = { bare: [], n8n: [], reads: [], plain: [], node: [] };
	// Synchronous on purpose: the baselines pay no promise/microtask per envelope (the node's await is its cost).
	const loops: Record<Loop, (bodies: string[]) => Promise<void>> = {
		bare: async (bodies) => {
			for (let i = 0; i < bodies.length; i++) {
				sink += (JSON.parse(bodies[i]) as { data: { appointment_key: string } }).data.appointment_key.length;
			}
		},
		n8n: async (bodies) => {
			for (let i = 0; i < bodies.length; i++) {
				if (h.contextOnly() !== undefined) sink += (JSON.parse(bodies[i]) as { data: { appointment_key: string } }).data.appointment_key.length;
			}
		},
		// The n8n calls webhook() makes for every notification (node, workflow id, mode, body, response; the
		// parameters are read from the node as saved, see trigger/config.ts).
		reads: async (bodies) => {
			for (let i = 0; i < bodies.length; i++) {
				const c = h.contextOnly() as IWebhookFunctions;
				sink += (JSON.parse(bodies[i]) as { data: { appointment_key: string } }).data.appointment_key.length;
				sink += c.getNode().name.length + String(c.getWorkflow().id).length + c.getMode().length;
				if (c.getBodyData() !== undefined) sink++;
				if (c.getResponseObject() !== undefined) sink++;
			}
		},
		plain: async (bodies) => {
			let ok = 0;
			for (let i = 0; i < bodies.length; i++) {
				if (started(await p.call(JSON.parse(bodies[i])))) ok++;
			}
			if (ok !== bodies.length) throw new Error(`the plain trigger started ${ok} of ${bodies.length} envelopes`);
		},
		node: async (bodies) => {
			let ok = 0;
			for (let i = 0; i < bodies.length; i++) {
				if (started(await h.call(JSON.parse(bodies[i])))) ok++;
			}
			if (ok !== bodies.length) throw new Error(`webhook() started ${ok} of ${bodies.length} distinct valid envelopes`);
		},
	};
	const measure = async (loop: Loop, bodies: string[]) => {
		const t0 = performance.now();
		const c0 = process.cpuUsage();
		await loops[loop](bodies);
		const c = process.cpuUsage(c0);
		cpuUs[loop].push((c.user + c.system) / bodies.length);
		wallUs[loop].push(((performance.now() - t0) * 1000) / bodies.length);
	};
	// Warm-up (JIT) of every loop.
	const all: Loop[] = ['bare', 'n8n', 'reads', 'plain', 'node'];
	for (const loop of all) await measure(loop, freshBodies());
	for (const loop of all) {
		cpuUs[loop].length = 0;
		wallUs[loop].length = 0;
	}
	for (let r = 0; r < rounds; r++) {
		// Rotate the order so that none always runs right after another's garbage.
		for (let k = 0; k < all.length; k++) {
			const loop = all[(r + k) % all.length];
			const bodies = freshBodies();
			gc();
			await measure(loop, bodies);
		}
	}
	const bodySize = Buffer.byteLength(JSON.stringify(envelope(1, 'a')));
	const parseUs = median(cpuUs.bare);
	const n8nUs = median(cpuUs.n8n);
	const readsUs = median(cpuUs.reads);
	const nodeUs = median(cpuUs.node);
	const plainUs = median(cpuUs.plain);
	const oursUs = nodeUs - n8nUs;
	const ownUs = nodeUs - readsUs;
	const ratio = plainUs / nodeUs;
	const parseRatio = parseUs / (parseUs + oursUs);
	const perSecond = (us: number) => round(1e6 / us, 0);
	ctx.log(
		`part 3: per envelope (CPU): bare parse ${parseUs.toFixed(2)} us, n8n's new Workflow + context + parse ${n8nUs.toFixed(2)} us, ` +
			`+ webhook() ${nodeUs.toFixed(2)} us (the plainest trigger: ${plainUs.toFixed(2)} us); ours ${oursUs.toFixed(2)} us, of which n8n's node and body reads ${(readsUs - n8nUs).toFixed(2)} us; ` +
			`node / plain ${ratio.toFixed(3)}, (parse + ours) / parse ${parseRatio.toFixed(3)} (sink ${sink % 7})`,
	);
	rows.push({
		part: 3,
		name: `Trigger: notifications per CPU second with a new n8n Workflow and context per request (as n8n 2.41 does), our webhook() (validate + event filter + dedupe) / the plainest webhook() (body out as one item, same description) (${bodySize} B bodies)`,
		value: perSecond(nodeUs),
		baseline: perSecond(plainUs),
		unit: '/s',
		ratio: round(ratio, 3),
		target: '>= 0.5',
		met: ratio >= 0.5,
		details: {
			plainLoopMicros: round(plainUs, 3),
			rounds,
			envelopesPerRound: perRound,
			measuredBy: 'CPU time of the process per round (user + system); ours = (node loop - n8n loop)',
			bareParseMicros: round(parseUs, 3),
			n8nLoopMicros: round(n8nUs, 3),
			readsLoopMicros: round(readsUs, 3),
			nodeLoopMicros: round(nodeUs, 3),
			oursMicros: round(oursUs, 3),
			n8nReadsMicros: round(readsUs - n8nUs, 3),
			ownLogicMicros: round(ownUs, 3),
			cpuMicros: Object.fromEntries(Object.entries(cpuUs).map(([k, v]) => [k, v.map((x) => round(x, 2))])),
			wallMicrosMedian: Object.fromEntries(Object.entries(wallUs).map(([k, v]) => [k, round(median(v), 3)])),
		},
	});
	rows.push({
		part: 3,
		name: 'Context: JSON.parse + our webhook() with its n8n calls (node loop - n8n loop) / bare JSON.parse',
		value: perSecond(parseUs + oursUs),
		baseline: perSecond(parseUs),
		unit: '/s',
		ratio: round(parseRatio, 3),
		details: { oursMicros: round(oursUs, 3) },
	});
	rows.push({
		part: 3,
		name: "Context: of that, our own logic (validate + dedupe + result), without n8n's parameter and node reads: JSON.parse + it / bare JSON.parse",
		value: perSecond(parseUs + ownUs),
		baseline: perSecond(parseUs),
		unit: '/s',
		ratio: round(parseUs / (parseUs + ownUs), 3),
		details: { ownLogicMicros: round(ownUs, 3), n8nReadsMicros: round(readsUs - n8nUs, 3) },
	});
	rows.push({
		part: 3,
		name: "Context: n8n's own work per request (new Workflow + WebhookContext), the node loop as a whole / bare JSON.parse",
		value: perSecond(nodeUs),
		baseline: perSecond(parseUs),
		unit: '/s',
		ratio: round(parseUs / nodeUs, 3),
		details: { n8nMicrosPerRequest: round(n8nUs - parseUs, 3), oursMicros: round(oursUs, 3) },
	});

	// ---- memory after 1,000,000 distinct events
	const total = ctx.smoke ? 100_000 : 1_000_000;
	const window = dedupe.DEFAULT_WINDOW;
	const m = harness(core, workflowLib, trigger, 'wf-memory', true);
	const scope = `${m.workflowId}\n${m.nodeId}\nproduction\neventKeyTimestamp`;
	const heap = () => {
		gc();
		gc();
		return process.memoryUsage().heapUsed;
	};
	const heapBefore = heap();
	let i = 0;
	const feed = async (upTo: number) => {
		for (; i < upTo; i++) {
			const r = await m.call(envelope(i, 'b'));
			if (!started(r)) throw new Error(`distinct event ${i} was not started (dedupe memory dropped a new event?)`);
		}
	};
	const t0 = performance.now();
	await feed(2 * window);
	const heapFull = heap();
	await feed(total);
	const seconds = (performance.now() - t0) / 1000;
	const heapAfter = heap();
	const store = dedupe.recentKeysFor(scope, window);
	// The first events must have been forgotten (window exceeded) and the last ones remembered.
	const oldest = await m.call(envelope(0, 'b'));
	const newest = await m.call(envelope(total - 1, 'b'));
	const mb = (b: number) => round(b / 2 ** 20, 2);
	const growth = heapAfter - heapFull;
	ctx.log(
		`part 3: ${total} events in ${seconds.toFixed(1)} s; store ${store.size}/${window}; heap ${mb(heapBefore)} -> ${mb(heapFull)} -> ${mb(heapAfter)} MB`,
	);
	rows.push({
		part: 3,
		name: `Trigger dedupe memory after ${total.toLocaleString('en-US')} distinct events: heap after / heap with the window full`,
		value: mb(heapAfter),
		baseline: mb(heapFull),
		unit: 'MB',
		ratio: round(heapAfter / heapFull, 3),
		target: `store = ${window} keys, heap growth < 2 MB`,
		met: store.size === window && growth < 2 * 2 ** 20 && started(oldest) && !started(newest),
		details: {
			storeSize: store.size,
			window,
			heapBeforeAnyEventMB: mb(heapBefore),
			heapWindowFullMB: mb(heapFull),
			heapAfterMB: mb(heapAfter),
			growthMB: mb(growth),
			storeCostMB: mb(heapFull - heapBefore),
			bytesPerKey: round((heapFull - heapBefore) / window, 0),
			oldestEventStartsAgain: started(oldest),
			newestEventIsDuplicate: !started(newest),
			eventsPerSec: round(total / seconds, 0),
		},
	});
	return rows;
}
