/**
 * Reads a list page by page (each answer by listPage.ts, `next` where followLink allows), each record handed over
 * once (by `keyField`; a record without it fails the read) when `keep` accepts it, no page requested beyond `limit`.
 * With `pageConcurrency` > 1 and page-number paging proved by the first page (a `count`, an absolute `next` that is
 * its URL with one parameter set to the next page number), pages are requested ahead; one is used only when the
 * `next` followed is its URL (the service's order, each page read once); from the first other `next`, links rule.
 */
import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { apiRequest, apiRequestUrl } from '../http/apiRequest';
import { credentialInfo, type RequestPolicy, type TransportContext } from '../http/credentialInfo';
import { redactError } from '../http/redaction';
import type { ApiResponse } from '../http/retries';
import { followLink, listPathOf, pageKey, readListPage, type ListPage } from './listPage';

/** `maxPages` (default 10000) reached while a `next` is offered is an error; `pageConcurrency` defaults to 1. */
export type PaginateOptions = {
	limit?: number; itemIndex?: number; policy?: Partial<RequestPolicy>; maxPages?: number; keyField?: string; resource?: string;
	pageConcurrency?: number; keep?: (record: IDataObject) => boolean;
};

/** Page-number paging as the first page proved it: page `n` is `template` with `param` set to `n`. */
type PagePlan = { template: URL; param: string; nextPage: number; lastPage: number; pageSize: number };

const PAGE_NUMBER = /^[1-9]\d{0,8}$/;

/** The plan the first page proves, or undefined (then `next` is followed as given). */
function planPages(first: ListPage, nextUrl: string, maxPages: number): PagePlan | undefined {
	// A relative link says nothing about how the service builds its URLs.
	if (first.count === undefined || first.records.length === 0 || !/^https?:\/\//i.test(first.next ?? '')) return undefined;
	const [from, to] = [new URL(first.url), new URL(nextUrl)];
	// The same values in any order: a service that rewrites its links may reorder a repeated parameter too.
	const values = (u: URL, n: string) => JSON.stringify(u.searchParams.getAll(n).sort());
	const differing = [...new Set([...from.searchParams.keys(), ...to.searchParams.keys()])].filter((n) => values(from, n) !== values(to, n));
	if (from.origin !== to.origin || from.pathname !== to.pathname || differing.length !== 1) return undefined;
	const [param] = differing;
	const [was, now] = [from.searchParams.getAll(param), to.searchParams.getAll(param)];
	if (now.length !== 1 || !PAGE_NUMBER.test(now[0]) || was.length > 1 || (was.length === 1 && !PAGE_NUMBER.test(was[0]))) return undefined;
	const firstPage = was.length ? Number(was[0]) : 1;
	const pageSize = first.records.length;
	const lastPage = Math.ceil(first.count / pageSize);
	if (Number(now[0]) !== firstPage + 1 || first.count <= firstPage * pageSize || lastPage > maxPages) return undefined;
	return { template: to, param, nextPage: firstPage + 1, lastPage, pageSize };
}

/** The pages requested ahead of the reader, in order, and the plan that predicts them. */
class Ahead {
	plan: PagePlan | undefined;
	private readonly queue: Array<{ key: string; response: Promise<ApiResponse<unknown>> }> = [];

	constructor(private readonly get: (url: string) => Promise<ApiResponse<unknown>>, private readonly concurrency: number) {}

	/** The page fetched ahead when it is `nextUrl`'s, else (the plan ends) `nextUrl` requested now. */
	async read(nextUrl: string, wanted: number): Promise<ApiResponse<unknown>> {
		this.fill(wanted);
		if (this.queue[0]?.key === pageKey(nextUrl)) {
			const response = await this.queue.shift()!.response;
			// Keep the window full while this page's records are handed over.
			if (wanted === Infinity) this.fill(Infinity);
			return response;
		}
		await this.settle();
		return await this.get(nextUrl);
	}

	/** Starts pages until `concurrency` are ahead of the reader, or their records cover `wanted`. */
	private fill(wanted: number): void {
		const plan = this.plan;
		while (plan && this.queue.length < this.concurrency && plan.nextPage <= plan.lastPage && this.queue.length * plan.pageSize < wanted) {
			const url = new URL(plan.template);
			url.searchParams.set(plan.param, String(plan.nextPage++));
			const response = this.get(url.href);
			response.catch(() => undefined); // one that fails after the reader stopped must not go unhandled
			this.queue.push({ key: pageKey(url.href), response });
		}
	}

	/** Drops the plan and waits for the pages in flight (their outcome no longer matters). */
	async settle(): Promise<void> {
		this.plan = undefined;
		await Promise.allSettled(this.queue.splice(0).map((q) => q.response));
	}
}

/** Pages in a row that bring no record not already returned before reading stops with an error (issue 10). */
const STALE_PAGES = 3;

/** What one read has seen: pages (by pageKey: a `next` back to one ends the list), records, pages in a row with no new one. */
type ReadState = { fetched: Set<string>; seen: Set<string>; yielded: number; pages: number; stale: number; repeated: number; firstCount?: number; lastCount?: number };

const RECORD_NOUN: Record<string, string> = { appointment_key: 'an appointment', webhook_key: 'a webhook subscription' };

/** The page's records not handed over before and kept, up to the limit; a record without its key fails the read. */
function freshRecords<T>(node: INode, page: ListPage, read: ReadState, opts: PaginateOptions): T[] {
	const fresh: T[] = [];
	const room = opts.limit === undefined ? Infinity : opts.limit - read.yielded;
	const fields = opts.keyField ? [opts.keyField] : ['appointment_key', 'webhook_key'];
	let unseen = 0;
	for (let i = 0; i < page.records.length && fresh.length < room; i++) {
		const record = page.records[i];
		const value = fields.map((f) => record[f]).find((v) => typeof v === 'string' || typeof v === 'number');
		if (value === undefined) {
			const what = fields.map((f) => RECORD_NOUN[f] ?? 'a record').join(' or ');
			const description = `GET ${page.url}: every element of "results" must be a record with its ${fields.join(' or ')}`;
			throw new NodeOperationError(node, `The service's list answer held a record without ${fields.join(' or ')} at position ${i + 1} of page ${read.pages}, so it is not ${what}`, { itemIndex: opts.itemIndex, description });
		}
		if (read.seen.has(String(value))) read.repeated++;
		else {
			read.seen.add(String(value));
			unseen++;
			if (opts.keep === undefined || opts.keep(record)) fresh.push(record as T);
		}
	}
	read.stale = unseen === 0 ? read.stale + 1 : 0;
	return fresh;
}

/** Stops a read that makes no progress or that reached `maxPages`. */
function checkProgress(node: INode, read: ReadState, page: ListPage, nextUrl: string, maxPages: number, itemIndex?: number): void {
	if (read.stale >= STALE_PAGES) {
		const description = `The last page was ${page.url}; its "next" was ${nextUrl}`;
		throw new NodeOperationError(node, `Stopped reading: the service answered ${read.stale} pages in a row with nothing not already returned, and still offered more`, { itemIndex, description });
	}
	if (read.pages >= maxPages) {
		throw new NodeOperationError(node, `Stopped after ${maxPages} pages while the service still offered more; narrow the filters or use a limit`, { itemIndex });
	}
}

/** Tells the user, where n8n shows it (a hint on the node's output) and in the log, what a read could not promise. */
function noticeChanges(ctx: TransportContext, read: ReadState): void {
	if (read.lastCount === read.firstCount && read.repeated === 0) return;
	const what = read.lastCount !== read.firstCount
		? `The list changed while it was read (the service's count went from ${read.firstCount} to ${read.lastCount})`
		: `${read.repeated} record${read.repeated === 1 ? '' : 's'} came more than once, so the list probably changed while it was read`;
	const message = `${what}: each record was returned once, but records added, removed or moved during the read may be missing. Run again for a complete list.`;
	ctx.logger?.warn(`Appointments: ${message}`);
	if ('addExecutionHints' in ctx && typeof ctx.addExecutionHints === 'function') ctx.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
}

/**
 * Yields each page's records not returned before (never an empty array: whole pages, each yield costs promise turns),
 * in the service's order. Every error goes out redacted: the links and pages it may quote are the service's.
 */
export async function* paginate<T = IDataObject>(ctx: TransportContext, path: string, qs?: IDataObject, opts: PaginateOptions = {}): AsyncGenerator<T[]> {
	const info = await credentialInfo(ctx);
	try {
		if (opts.limit === undefined || opts.limit > 0) yield* readPages<T>(ctx, info.baseUrl, path, qs, opts);
	} catch (error) {
		throw redactError(error, info.secrets);
	}
}

async function* readPages<T>(ctx: TransportContext, baseUrl: string, path: string, qs: IDataObject | undefined, opts: PaginateOptions): AsyncGenerator<T[]> {
	const { limit, itemIndex } = opts;
	const node = ctx.getNode();
	const maxPages = opts.maxPages ?? 10000;
	// One wait for all pages: a 429 on one pauses them all, and the retry wait budget bounds the whole list.
	const requestOpts = { itemIndex, policy: opts.policy, resource: opts.resource, sharedWait: { pausedUntil: 0, waitedMs: 0 } };
	let page = readListPage(node, await apiRequest<unknown>(ctx, 'GET', path, { ...requestOpts, qs }), 1, itemIndex);
	const listPath = listPathOf(page.url);
	const read: ReadState = { fetched: new Set([pageKey(page.url)]), seen: new Set(), yielded: 0, pages: 1, stale: 0, repeated: 0, firstCount: page.count, lastCount: page.count };
	const concurrency = Math.max(1, Math.floor(opts.pageConcurrency ?? 1));
	const ahead = new Ahead(async (url) => await apiRequestUrl<unknown>(ctx, 'GET', url, requestOpts), concurrency);
	try {
		for (;;) {
			const fresh = freshRecords<T>(node, page, read, opts);
			read.yielded += fresh.length;
			if (fresh.length > 0) yield fresh;
			if (limit !== undefined && read.yielded >= limit) return;
			if (page.count !== undefined) read.lastCount = page.count;
			if (page.records.length === 0 || page.next === undefined) return;
			const nextUrl = followLink(node, baseUrl, listPath, page.next, page.url, itemIndex);
			if (read.fetched.has(pageKey(nextUrl))) return;
			checkProgress(node, read, page, nextUrl, maxPages, itemIndex);
			if (read.pages++ === 1 && concurrency > 1) ahead.plan = planPages(page, nextUrl, maxPages);
			page = readListPage(node, await ahead.read(nextUrl, limit === undefined ? Infinity : limit - read.yielded), read.pages, itemIndex);
			read.fetched.add(pageKey(page.url));
		}
	} finally {
		await ahead.settle();
		noticeChanges(ctx, read);
	}
}

/** Collects `paginate` into an array. */
export async function paginateAll<T = IDataObject>(ctx: TransportContext, path: string, qs?: IDataObject, opts: PaginateOptions = {}): Promise<T[]> {
	const out: T[] = [];
	for await (const records of paginate<T>(ctx, path, qs, opts)) out.push(...records);
	return out;
}
