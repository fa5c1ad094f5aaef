/**
 * Part 3's memory figure: one workflow and context (reused, to keep the run short), default window; GC + heapUsed
 * before any event, after 2 x window events (memory full) and after 1,000,000 distinct events. The dedupe store of
 * the scope must hold exactly `window` keys and the heap must not grow between the second and third measurement
 * (< 2 MB); (full - before) / window is the memory per remembered key.
 */
import { requireBuilt } from '../lib/build';
import { round, type PartContext, type Row } from '../lib/common';
import { gc } from '../lib/node';
import { envelope, harness, started } from '../lib/trigger-harness';
import type { TriggerBench } from '../lib/trigger-harness';

interface Dedupe {
	recentKeysFor: (scope: string, limit: number) => { size: number; limit: number };
	DEFAULT_WINDOW: number;
	scopeCount: () => number;
}

export async function memoryRow(
	ctx: PartContext,
	{ trigger, core, workflowLib }: TriggerBench,
): Promise<Row> {
	// The built module: the one the built trigger of part 3 remembers its keys in.
	const dedupe = requireBuilt<Dedupe>(ctx, 'nodes/Appointments/trigger/dedupe.js');
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
			if (!started(r))
				throw new Error(`distinct event ${i} was not started (dedupe memory dropped a new event?)`);
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
	return {
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
	};
}
