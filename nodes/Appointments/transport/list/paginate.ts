/**
 * Reads a list page by page: every answer shape (`{results, next}` with page-number or cursor links, `{results}`,
 * a bare array), `next` followed only on the credential's origin and inside the list endpoint's path, each record
 * handed over once (by `keyField`, default `appointment_key` then `webhook_key`), no page requested beyond `limit`.
 * With `pageConcurrency` > 1 and page-number paging proven by the first page (see pagePlan.ts), the remaining
 * pages are fetched several at a time and still handed over in the service's order.
 */
import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import { followLink, listPathOf, readListPage, type ListPage } from './listPage';
import { PageFetcher, planPages } from './pagePlan';
import {
	apiRequest,
	apiRequestUrl,
	transportCredentialInfo,
	type RequestPolicy,
	type TransportContext,
} from '../http';

export interface PaginateOptions {
	limit?: number;
	itemIndex?: number;
	policy?: Partial<RequestPolicy>;
	/** Default 10000; reaching it while the service still offers a `next` is an error. */
	maxPages?: number;
	keyField?: string;
	resource?: string;
	/** Pages in flight at once when the paging allows it (default 1: one after the other). */
	pageConcurrency?: number;
}

/** Pages in a row that bring no record not already returned before reading stops with an error. */
const STALE_PAGES = 3;

function recordKey(record: IDataObject, keyField?: string): string | undefined {
	const fields = keyField ? [keyField] : ['appointment_key', 'webhook_key'];
	for (const field of fields) {
		const value = record[field];
		if (typeof value === 'string' || typeof value === 'number') return String(value);
	}
	return undefined;
}

/** Tells the user, where n8n shows it (a hint on the node's output) and in the log, what a read could not promise. */
function notice(ctx: TransportContext, message: string): void {
	ctx.logger?.warn(`Appointments: ${message}`);
	if ('addExecutionHints' in ctx && typeof ctx.addExecutionHints === 'function') {
		ctx.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
	}
}

/**
 * Yields each page's records not returned before (never an empty array), in the service's order. Whole pages,
 * not single records: an async generator pays a few promise turns per value, about 4 % of Get Many's CPU when
 * it handed over each record (bench/README.md).
 */
export async function* paginate<T = IDataObject>(
	ctx: TransportContext,
	path: string,
	qs?: IDataObject,
	opts: PaginateOptions = {},
): AsyncGenerator<T[]> {
	const limit = opts.limit;
	if (limit !== undefined && limit <= 0) return;
	const node = ctx.getNode();
	const itemIndex = opts.itemIndex;
	const maxPages = opts.maxPages ?? 10000;
	// One wait for all pages: a 429 on one pauses them all, and Max Retry Wait bounds the whole list.
	const requestOpts = { itemIndex, policy: opts.policy, resource: opts.resource, sharedWait: { pausedUntil: 0, waitedMs: 0 } };
	const get = async (url: string) => await apiRequestUrl<unknown>(ctx, 'GET', url, requestOpts);
	const { baseUrl } = await transportCredentialInfo(ctx);

	const response = await apiRequest<unknown>(ctx, 'GET', path, { ...requestOpts, qs });
	let page: ListPage = readListPage(node, response.url, response.body, 1, itemIndex);
	const listPath = listPathOf(response.url);
	const firstCount = page.count;
	const fetched = new Set<string>([page.url]);
	const yieldedKeys = new Set<string>();
	let yielded = 0;
	let pages = 1;
	let stale = 0;
	let repeated = 0;
	let lastCount = firstCount;

	let fetcher: PageFetcher | undefined;
	const concurrency = Math.max(1, Math.floor(opts.pageConcurrency ?? 1));

	try {
		for (;;) {
			const fresh: T[] = [];
			for (const record of page.records) {
				if (limit !== undefined && yielded + fresh.length >= limit) break;
				const key = recordKey(record, opts.keyField);
				if (key !== undefined) {
					if (yieldedKeys.has(key)) {
						repeated++;
						continue;
					}
					yieldedKeys.add(key);
				}
				fresh.push(record as T);
			}
			if (fresh.length > 0) {
				yielded += fresh.length;
				yield fresh;
			}
			if (limit !== undefined && yielded >= limit) return;
			if (page.count !== undefined) lastCount = page.count;

			if (page.records.length === 0 || page.next === undefined) return;
			const nextUrl = followLink(node, baseUrl, listPath, page.next, page.url, itemIndex);
			if (fetched.has(nextUrl)) return;
			stale = fresh.length === 0 ? stale + 1 : 0;
			if (stale >= STALE_PAGES) {
				throw new NodeOperationError(
					node,
					`Stopped reading: the service answered ${stale} pages in a row with nothing not already returned, and still offered more`,
					{ itemIndex, description: `The last page was ${page.url}; its "next" was ${nextUrl}` },
				);
			}
			if (pages >= maxPages) {
				throw new NodeOperationError(
					node,
					`Stopped after ${maxPages} pages while the service still offered more; narrow the filters or use a limit`,
					{ itemIndex },
				);
			}

			if (pages === 1 && concurrency > 1) {
				const plan = planPages(page, nextUrl, maxPages);
				if (plan) fetcher = new PageFetcher(node, plan, concurrency, get, itemIndex);
			}
			pages++;
			let planned: Awaited<ReturnType<PageFetcher['take']>>;
			if (fetcher) {
				fetcher.fill(limit === undefined ? Infinity : limit - yielded);
				planned = await fetcher.take(nextUrl, pages);
				if (!planned?.asPlanned) {
					await fetcher.settle();
					fetcher = undefined;
				} else if (limit === undefined) {
					// Keep the window full while this page's records are handed over.
					fetcher.fill(Infinity);
				}
			}
			if (planned) {
				page = planned.page;
			} else {
				const next = await get(nextUrl);
				page = readListPage(node, next.url, next.body, pages, itemIndex);
			}
			fetched.add(page.url);
		}
	} finally {
		await fetcher?.settle();
		if (lastCount !== firstCount || repeated > 0) {
			const what =
				lastCount !== firstCount
					? `The list changed while it was read (the service's count went from ${firstCount} to ${lastCount})`
					: `${repeated} record${repeated === 1 ? '' : 's'} came more than once, so the list probably changed while it was read`;
			notice(
				ctx,
				`${what}: each record was returned once, but records added, removed or moved during the read may be missing. Run again for a complete list.`,
			);
		}
	}
}

/** Collects `paginate` into an array. */
export async function paginateAll<T = IDataObject>(
	ctx: TransportContext,
	path: string,
	qs?: IDataObject,
	opts: PaginateOptions = {},
): Promise<T[]> {
	const out: T[] = [];
	for await (const records of paginate<T>(ctx, path, qs, opts)) {
		for (const record of records) out.push(record);
	}
	return out;
}
