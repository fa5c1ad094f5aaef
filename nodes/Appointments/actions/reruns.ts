/**
 * What one item's write did, kept for n8n's Retry On Fail: it runs the node again in the same execution with the
 * same run index, every item again, also those the failed try completed. From version 4 on a re-run returns a
 * completed write's result instead of sending it (and e-mailing a client) again.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

/**
 * The same for every run of this item that n8n's Retry On Fail makes. Undefined without Retry On Fail, or when
 * n8n does not say which run this is.
 */
export function rerunKeyOf(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	const node = ctx.getNode();
	if (node.retryOnFail !== true) return undefined;
	let runIndex: unknown;
	try {
		runIndex = ctx.getWorkflowDataProxy(itemIndex).$runIndex;
	} catch {
		return undefined;
	}
	const executionId = ctx.getExecutionId();
	if (!executionId || typeof runIndex !== 'number') return undefined;
	return JSON.stringify([executionId, node.id ?? node.name, runIndex, itemIndex]);
}

/**
 * By rerunKeyOf: a completed write's result, and what an operation keeps for its own re-runs (`memo`: Webhook ›
 * Create's list before its first POST). Kept an hour at most, the newest 1000 (a re-run follows within minutes).
 */
const KEPT = new Map<string, { at: number; result?: IDataObject | IDataObject[]; memo: object }>();
const KEEP_MS = 60 * 60 * 1000;
const MAX_KEPT = 1000;

function entry(key: string, now = Date.now()) {
	// Oldest first (a Map keeps insertion order): drop what is too old or beyond the bound.
	for (const [k, kept] of KEPT) {
		if (now - kept.at < KEEP_MS && KEPT.size <= MAX_KEPT) break;
		KEPT.delete(k);
	}
	let kept = KEPT.get(key);
	if (kept === undefined) KEPT.set(key, (kept = { at: now, memo: {} }));
	return kept;
}

export function recallWrite(key: string): IDataObject | IDataObject[] | undefined {
	return entry(key).result;
}

export function rememberWrite(key: string, result: IDataObject | IDataObject[]): void {
	entry(key).result = result;
}

/** The same object in every run of this item that n8n's Retry On Fail makes; undefined without it. */
export function rerunMemo<T extends object>(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Partial<T> | undefined {
	const key = rerunKeyOf(ctx, itemIndex);
	return key === undefined ? undefined : (entry(key).memo as Partial<T>);
}
