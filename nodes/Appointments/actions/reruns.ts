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

/** Completed writes by rerunKeyOf: kept an hour at most, the newest 1000 (a re-run follows within minutes). */
const DONE = new Map<string, { at: number; result: IDataObject | IDataObject[] }>();
const KEEP_MS = 60 * 60 * 1000;
const MAX_KEPT = 1000;

export function recallWrite(key: string, now = Date.now()): IDataObject | IDataObject[] | undefined {
	// Oldest first (a Map keeps insertion order): drop what is too old or beyond the bound.
	for (const [k, done] of DONE) {
		if (now - done.at < KEEP_MS && DONE.size <= MAX_KEPT) break;
		DONE.delete(k);
	}
	return DONE.get(key)?.result;
}

export function rememberWrite(key: string, result: IDataObject | IDataObject[]): void {
	DONE.set(key, { at: Date.now(), result });
}
