/**
 * Part 3's memory figure: one workflow and context (reused, to keep the run short), default window; GC + heapUsed
 * before any event, after 2 x window events (memory full) and after 1,000,000 distinct events. The trigger must
 * remember exactly the last `window` events and the heap must not grow between the second and third measurement
 * (< 2 MB); (full - before) / window is the memory per remembered key.
 */
import { DEFAULT_WINDOW } from '../../nodes/Appointments/trigger/dedupe';
import { round, type PartContext, type Row } from '../lib/common';
import { gc } from '../lib/node';
import { envelope, harness, started } from '../lib/trigger-harness';
import type { TriggerBench } from '../lib/trigger-harness';

export async function memoryRow(
	ctx: PartContext,
	{ trigger, core, workflowLib }: TriggerBench,
): Promise<Row> {
	const total = ctx.smoke ? 100_000 : 1_000_000;
	const window = DEFAULT_WINDOW;
	const m = harness(core, workflowLib, trigger, 'wf-memory', true);
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
	// Exactly the last `window` events remembered: the oldest of them is still a duplicate, the one before it starts
	// again (asked in that order: a started event is remembered and pushes the oldest out).
	const oldest = await m.call(envelope(total - window, 'b'));
	const forgotten = await m.call(envelope(total - window - 1, 'b'));
	const mb = (b: number) => round(b / 2 ** 20, 2);
	const growth = heapAfter - heapFull;
	ctx.log(
		`part 3: ${total} events in ${seconds.toFixed(1)} s; window ${window}; heap ${mb(heapBefore)} -> ${mb(heapFull)} -> ${mb(heapAfter)} MB`,
	);
	return {
		part: 3,
		name: `Trigger dedupe memory after ${total.toLocaleString('en-US')} distinct events: heap after / heap with the window full`,
		value: mb(heapAfter),
		baseline: mb(heapFull),
		unit: 'MB',
		ratio: round(heapAfter / heapFull, 3),
		target: `the last ${window} events remembered, heap growth < 2 MB`,
		met: !started(oldest) && started(forgotten) && growth < 2 * 2 ** 20,
		details: {
			window,
			heapBeforeAnyEventMB: mb(heapBefore),
			heapWindowFullMB: mb(heapFull),
			heapAfterMB: mb(heapAfter),
			growthMB: mb(growth),
			storeCostMB: mb(heapFull - heapBefore),
			bytesPerKey: round((heapFull - heapBefore) / window, 0),
			oldestRememberedIsDuplicate: !started(oldest),
			oneBeforeStartsAgain: started(forgotten),
			eventsPerSec: round(total / seconds, 0),
		},
	};
}
