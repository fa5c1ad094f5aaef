/**
 * What one item's write did, kept for n8n's Retry On Fail: it runs the node again in the same execution with the
 * same run index, every item again, also those the failed try completed. From version 4 on a re-run returns a
 * completed write's result instead of sending it (and e-mailing a client) again.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { PreparedRun } from './types.js';

type Kept = { result?: IDataObject | IDataObject[]; memo: object };

/**
 * Per run of a node in an execution, by item. n8n hands every try of one run the same execute data, and drops it
 * when the execution moves on: each execution owns its memory, whatever its batch size, for as long as n8n may
 * re-run it, and none can push another's out.
 */
const RUNS = new WeakMap<object, Map<number, Kept>>();

/** This item's record in this run, or undefined without Retry On Fail (nothing runs again) or execute data. */
function keptOf(ctx: IExecuteFunctions, itemIndex: number): Kept | undefined {
	if (ctx.getNode().retryOnFail !== true) return undefined;
	let run: unknown;
	try {
		run = ctx.getExecuteData();
	} catch {
		return undefined;
	}
	if (run === null || typeof run !== 'object') return undefined;
	let items = RUNS.get(run);
	if (items === undefined) RUNS.set(run, (items = new Map()));
	let item = items.get(itemIndex);
	if (item === undefined) items.set(itemIndex, (item = { memo: {} }));
	return item;
}

/** A write that returns, when Retry On Fail runs it again, what its completed earlier try returned. */
export function remembered(
	ctx: IExecuteFunctions,
	run: PreparedRun,
	itemIndex: number,
): PreparedRun {
	const item = keptOf(ctx, itemIndex);
	if (item === undefined) return run;
	return async () => {
		item.result ??= await run();
		return item.result;
	};
}

/** The same object in every try of this item that n8n's Retry On Fail makes (Webhook › Create's first list); undefined without it. */
export function rerunMemo<T extends object>(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Partial<T> | undefined {
	return keptOf(ctx, itemIndex)?.memo as Partial<T> | undefined;
}
