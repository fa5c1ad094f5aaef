/**
 * Part 3: the trigger's webhook() (validation + dedupe) against a bare JSON.parse of the same bodies, and the
 * dedupe memory after 1,000,000 distinct events.
 *
 * webhook() is called as n8n calls it: `nodeType.webhook.call(ctx)` with a real n8n-core WebhookContext over a
 * real Workflow holding the trigger (events: all three, default options: dedupe on event + key + timestamp,
 * window 10,000), mode 'webhook' (production). n8n parses the request body before webhook() runs, so the node's
 * loop is `JSON.parse(body)` + `await webhook()` per envelope and the baseline loop is `JSON.parse(body)` of the
 * same bodies; envelopes per CPU second of the first / that of the second is the figure (target >= 0.5:
 * validation and dedupe may at most halve a bare parse). CPU time, not wall time: rounds are short and a
 * preemption by another process in one round distorted the wall-time ratio; wall rates are in the details. Every body is a distinct realistic envelope (~450 bytes), so every
 * call validates, misses the dedupe memory, remembers its key and returns workflowData. Rounds alternate
 * bare/node on fresh bodies; the median rate of each is taken.
 *
 * The context is created once and its request body swapped per envelope (the figure is the node's code). n8n
 * builds a context per request; that cost is n8n's and is reported as a context row (fresh WebhookContext per
 * envelope).
 *
 * Memory: one workflow, default window; GC + heapUsed before any event, after 2 x window events (memory full)
 * and after 1,000,000 distinct events. The dedupe store of the scope must hold exactly `window` keys and the heap
 * must not grow between the second and third measurement (< 2 MB).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INode, INodeType, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { median, requireProjectFile, round, type PartContext, type Row } from '../lib/common';
import { gc } from '../lib/node';

if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-n8n-'));
}

const EVENTS = ['appointment.created', 'appointment.updated', 'appointment.canceled'];
const STATUSES = ['CONFIRMED', 'PENDING', 'ATTENDED', 'NO_SHOW', 'CANCELED'];

type Core = typeof import('n8n-core');
type WorkflowLib = typeof import('n8n-workflow');

export function quietN8n(workflowLib: WorkflowLib): void {
	const noop = () => undefined;
	const logger: Record<string, unknown> = { error: noop, warn: noop, info: noop, debug: noop };
	logger.scoped = () => logger;
	workflowLib.LoggerProxy.init(logger as never);
	const fromCore = (id: string) => require(require.resolve(id, { paths: [require.resolve('n8n-core')] }));
	const { Container } = fromCore('@n8n/di') as { Container: { set: (token: unknown, value: unknown) => void } };
	const { Logger } = fromCore('@n8n/backend-common') as { Logger: unknown };
	Container.set(Logger, logger);
}

/** A distinct, realistic envelope for sequence number `i` (keys and timestamps differ for every i). */
export function envelope(i: number, salt: string): Record<string, unknown> {
	const hex = (i + 0x10000000).toString(16);
	const start = new Date(Date.UTC(2026, 10, 24, 8 + (i % 10), (i * 7) % 60)).toISOString().replace('.000Z', '-03:00');
	return {
		event: EVENTS[i % 3],
		timestamp: new Date(1_790_000_000_000 + i * 1000).toISOString().replace('Z', '+00:00'),
		data: {
			appointment_key: `${salt}${hex}-7c1e-4b5a-9d2f-${hex}${hex.slice(0, 4)}`,
			search_code: `APT-${hex.toUpperCase()}`,
			status: STATUSES[i % STATUSES.length],
			start_date: start,
			calendar: { calendar_key: '3f0c9a52-6a7e-4d1b-8c33-5b2e9f1d7a40', name: 'Dr. Ana Rojas - Cardiología' },
			person: { full_name: `Paciente Número ${i}`, email: `paciente.${i}@example.com` },
		},
	};
}

interface Harness {
	call(body: unknown): Promise<IWebhookResponseData>;
	callFresh(body: unknown): Promise<IWebhookResponseData>;
	workflowId: string;
	nodeId: string;
}

export function harness(core: Core, workflowLib: WorkflowLib, trigger: INodeType, workflowId: string): Harness {
	const nodeId = `trigger-${workflowId}`;
	const node: INode = {
		id: nodeId,
		name: 'Appointments Trigger',
		type: 'bench.appointmentsTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: { events: EVENTS, options: {} },
		webhookId: `wh-${workflowId}`,
		credentials: { appointmentsApi: { id: 'cred-1', name: 'Appointments account' } },
	};
	const nodeTypes = {
		getByName: () => trigger,
		getByNameAndVersion: (_n: string, v?: number) => workflowLib.NodeHelpers.getVersionedNodeType(trigger, v),
		getKnownTypes: () => ({}),
	};
	const workflow = new workflowLib.Workflow({
		id: workflowId,
		name: 'Bench trigger',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes: nodeTypes as never,
		staticData: {},
		settings: { executionOrder: 'v1' },
	});
	const wfNode = workflow.getNode(node.name)!;
	const request = { body: undefined as unknown, headers: { 'content-type': 'application/json' }, params: {}, query: {} };
	const response = {
		writeHead: () => response,
		end: () => response,
		status: () => response,
		json: () => response,
		send: () => response,
		setHeader: () => response,
	};
	const additionalData = {
		httpRequest: request,
		httpResponse: response,
		executionId: undefined,
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		variables: {},
	} as never;
	const description = trigger.description.webhooks?.[0];
	const webhookData = {
		httpMethod: 'POST',
		node: wfNode.name,
		path: 'webhook',
		webhookDescription: description,
		workflowId,
		workflowExecuteAdditionalData: additionalData,
	} as never;
	const webhook = trigger.webhook!;
	const ctx = new core.WebhookContext(workflow, wfNode, additionalData, 'webhook', webhookData, [], null);
	return {
		workflowId,
		nodeId,
		async call(body) {
			request.body = body;
			return await webhook.call(ctx as unknown as IWebhookFunctions);
		},
		async callFresh(body) {
			request.body = body;
			const fresh = new core.WebhookContext(workflow, wfNode, additionalData, 'webhook', webhookData, [], null);
			return await webhook.call(fresh as unknown as IWebhookFunctions);
		},
	};
}

function started(r: IWebhookResponseData): boolean {
	return Array.isArray(r.workflowData) && r.workflowData[0]?.length === 1;
}

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
	const perRound = ctx.smoke ? 5000 : 25000;
	const rounds = ctx.smoke ? 2 : 12;
	const h = harness(core, workflowLib, trigger, 'wf-throughput');

	// ---- throughput
	let seq = 0;
	const freshBodies = () => Array.from({ length: perRound }, () => JSON.stringify(envelope(seq++, 'a')));
	let sink = 0;
	// Synchronous on purpose: the baseline pays no promise/microtask per envelope (the node's await is its cost).
	// Rates are computed from the process's CPU time per round (wall time in the details): a round lasts tens of
	// milliseconds, and on a shared machine a preemption in one round moved the wall-time ratio by +-0.1.
	const wallRates: Record<'bare' | 'node' | 'fresh', number[]> = { bare: [], node: [], fresh: [] };
	const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
	const bareRate = async (bodies: string[]) => {
		const t0 = performance.now();
		const c0 = process.cpuUsage();
		for (let i = 0; i < bodies.length; i++) {
			const parsed = JSON.parse(bodies[i]) as { data: { appointment_key: string } };
			sink += parsed.data.appointment_key.length;
		}
		const cpu = cpuMs(process.cpuUsage(c0));
		wallRates.bare.push((bodies.length / (performance.now() - t0)) * 1000);
		return (bodies.length / cpu) * 1000;
	};
	const nodeRate = async (bodies: string[], call: (b: unknown) => Promise<IWebhookResponseData>, kind: 'node' | 'fresh' = 'node') => {
		let ok = 0;
		const t0 = performance.now();
		const c0 = process.cpuUsage();
		for (let i = 0; i < bodies.length; i++) {
			if (started(await call(JSON.parse(bodies[i])))) ok++;
		}
		const cpu = cpuMs(process.cpuUsage(c0));
		wallRates[kind].push((bodies.length / (performance.now() - t0)) * 1000);
		if (ok !== bodies.length) throw new Error(`webhook() started ${ok} of ${bodies.length} distinct valid envelopes`);
		return (bodies.length / cpu) * 1000;
	};
	// Warm-up (JIT) of both loops.
	await bareRate(freshBodies());
	await nodeRate(freshBodies(), h.call);
	wallRates.bare.length = 0;
	wallRates.node.length = 0;
	const bare: number[] = [];
	const node: number[] = [];
	for (let r = 0; r < rounds; r++) {
		const a = freshBodies();
		const b = freshBodies();
		gc();
		if (r % 2 === 0) {
			bare.push(await bareRate(a));
			node.push(await nodeRate(b, h.call));
		} else {
			node.push(await nodeRate(b, h.call));
			bare.push(await bareRate(a));
		}
	}
	const fresh: number[] = [];
	for (let r = 0; r < Math.max(1, rounds / 2); r++) {
		const b = freshBodies();
		gc();
		fresh.push(await nodeRate(b, h.callFresh, 'fresh'));
	}
	const bodySize = Buffer.byteLength(JSON.stringify(envelope(1, 'a')));
	const nodeMed = median(node);
	const bareMed = median(bare);
	const ratio = nodeMed / bareMed;
	ctx.log(`part 3: webhook() ${nodeMed.toFixed(0)}/s, bare parse ${bareMed.toFixed(0)}/s, ratio ${ratio.toFixed(3)} (sink ${sink % 7})`);
	rows.push({
		part: 3,
		name: `Trigger: envelopes per CPU second, JSON.parse + webhook() (validate + dedupe) / bare JSON.parse (${bodySize} B bodies)`,
		value: round(nodeMed, 0),
		baseline: round(bareMed, 0),
		unit: '/s',
		ratio: round(ratio, 3),
		target: '>= 0.5',
		met: ratio >= 0.5,
		details: {
			rounds,
			envelopesPerRound: perRound,
			measuredBy: 'CPU time of the process per round (user + system)',
			nodeRates: node.map((v) => round(v, 0)),
			bareRates: bare.map((v) => round(v, 0)),
			wallNodeRateMedian: round(median(wallRates.node), 0),
			wallBareRateMedian: round(median(wallRates.bare), 0),
			wallRatio: round(median(wallRates.node) / median(wallRates.bare), 3),
			nodeMicrosPerEnvelope: round(1e6 / nodeMed, 3),
			bareMicrosPerEnvelope: round(1e6 / bareMed, 3),
		},
	});
	const freshMed = median(fresh);
	rows.push({
		part: 3,
		name: 'Context: the same with a fresh n8n WebhookContext per envelope (as n8n builds one per request) / bare',
		value: round(freshMed, 0),
		baseline: round(bareMed, 0),
		unit: '/s',
		ratio: round(freshMed / bareMed, 3),
		details: { rates: fresh.map((v) => round(v, 0)), microsPerEnvelope: round(1e6 / freshMed, 3) },
	});

	// ---- memory after 1,000,000 distinct events
	const total = ctx.smoke ? 100_000 : 1_000_000;
	const window = dedupe.DEFAULT_WINDOW;
	const m = harness(core, workflowLib, trigger, 'wf-memory');
	const scope = `${m.workflowId}\n${m.nodeId}\nproduction`;
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
			oldestEventStartsAgain: started(oldest),
			newestEventIsDuplicate: !started(newest),
			eventsPerSec: round(total / seconds, 0),
		},
	});
	return rows;
}
