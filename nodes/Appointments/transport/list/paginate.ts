/**
 * Reads a list page by page: every answer shape (`{results, next}` with page-number or cursor links, `{results}`,
 * a bare array), `next` followed only on the credential's origin and inside the list endpoint's path, each record
 * handed over once (by `keyField`, default `appointment_key` then `webhook_key`; a record without it fails the
 * read) when `keep` accepts it, no page requested beyond `limit` records kept.
 *
 * With `pageConcurrency` > 1, when the first page proves page-number paging (a `count`, and an absolute `next` that
 * is its own URL with one parameter set to the following page number), the other pages' URLs are known: they are
 * fetched several at a time ahead of the reader (class Ahead), still handed over in order, each checked against
 * what was predicted; from the first one that differs, `next` is followed as given.
 */
import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { apiRequest, apiRequestUrl, credentialInfo, redactError, type ApiResponse, type RequestPolicy, type TransportContext } from '../http';
import { followLink, listPathOf, pageKey, readListPage, type ListPage } from './listPage';

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
	/** Records to hand over (default all): the others are dropped before `limit` counts them. */
	keep?: (record: IDataObject) => boolean;
}

type Get = (url: string) => Promise<ApiResponse<unknown>>;

/** Page-number paging as the first page proved it: page `n`'s URL is `template` with `param` set to `n`. */
interface PagePlan {
	param: string;
	firstPage: number;
	lastPage: number;
	pageSize: number;
	count: number;
	firstUrl: string;
	template: string;
	hasPrevious: boolean;
}

const PAGE_NUMBER = /^[1-9]\d{0,8}$/;

/** The plan the first page proves, or undefined (then `next` is followed as given). */
function planPages(first: ListPage, nextUrl: string, maxPages: number): PagePlan | undefined {
	// A relative link says nothing about how the service builds its URLs.
	if (first.count === undefined || first.records.length === 0 || !/^https?:\/\//i.test(first.next ?? '')) return undefined;
	const from = new URL(first.url);
	const to = new URL(nextUrl);
	if (from.origin !== to.origin || from.pathname !== to.pathname) return undefined;
	// The same values in any order: a service that rewrites its links may reorder a repeated parameter too.
	const values = (u: URL, n: string) => JSON.stringify(u.searchParams.getAll(n).sort());
	const names = new Set([...from.searchParams.keys(), ...to.searchParams.keys()]);
	const differing = [...names].filter((n) => values(from, n) !== values(to, n));
	if (differing.length !== 1) return undefined;
	const param = differing[0];
	const [was, now] = [from.searchParams.getAll(param), to.searchParams.getAll(param)];
	if (now.length !== 1 || !PAGE_NUMBER.test(now[0]) || was.length > 1) return undefined;
	if (was.length === 1 && !PAGE_NUMBER.test(was[0])) return undefined;
	const firstPage = was.length ? Number(was[0]) : 1;
	const pageSize = first.records.length;
	const lastPage = Math.ceil(first.count / pageSize);
	if (Number(now[0]) !== firstPage + 1 || first.count <= firstPage * pageSize || lastPage > maxPages) return undefined;
	const { count, url: firstUrl, hasPrevious } = first;
	return { param, firstPage, lastPage, pageSize, count, firstUrl, template: nextUrl, hasPrevious };
}

function pageUrl(plan: PagePlan, page: number): string {
	if (page === plan.firstPage + 1) return plan.template;
	const u = new URL(plan.template);
	u.searchParams.set(plan.param, String(page));
	return u.href;
}

function expectedLength(plan: PagePlan, page: number): number {
	return Math.max(0, Math.min(plan.pageSize, plan.count - (page - 1) * plan.pageSize));
}

/** Whether a fetched page is the one predicted: its count, its length, and its `previous` when pages have one. */
function asPredicted(plan: PagePlan, page: number, read: ListPage): boolean {
	if (read.count !== plan.count || read.records.length !== expectedLength(plan, page)) return false;
	if (page === plan.lastPage && read.next !== undefined) return false;
	if (!plan.hasPrevious) return true;
	const before = [pageUrl(plan, page - 1)];
	if (page - 1 === plan.firstPage) {
		const withoutParam = new URL(plan.firstUrl);
		withoutParam.searchParams.delete(plan.param);
		before.push(plan.firstUrl, withoutParam.href);
	}
	if (typeof read.previous !== 'string') return false;
	try {
		const resolved = pageKey(new URL(read.previous, read.url).href);
		return before.some((c) => pageKey(c) === resolved);
	} catch {
		return false;
	}
}

/**
 * The pages after the first: each read from its `next`, or, with a plan, fetched up to `concurrency` at a time
 * ahead of the reader and handed over in order until one differs from the plan.
 */
class Ahead {
	private plan: PagePlan | undefined;
	private nextPage = 0;
	private readonly queue: Array<{ page: number; url: string; response: Promise<ApiResponse<unknown>> }> = [];

	constructor(
		private readonly node: INode,
		private readonly concurrency: number,
		private readonly maxPages: number,
		private readonly get: Get,
		private readonly itemIndex?: number,
	) {}

	/** Page `pageNo` at `nextUrl`, the `next` of `current`, while `wanted` records are still to be handed over. */
	async read(current: ListPage, nextUrl: string, pageNo: number, wanted: number): Promise<ListPage> {
		if (pageNo === 2 && this.concurrency > 1) {
			this.plan = planPages(current, nextUrl, this.maxPages);
			this.nextPage = (this.plan?.firstPage ?? 0) + 1;
		}
		if (this.plan) this.fill(wanted);
		const head = this.queue[0];
		if (this.plan && head && pageKey(head.url) === pageKey(nextUrl)) {
			this.queue.shift();
			const page = readListPage(this.node, await head.response, pageNo, this.itemIndex);
			// A page that differs ends the plan: links are followed from it on.
			if (!asPredicted(this.plan as PagePlan, head.page, page)) await this.settle();
			// Keep the window full while this page's records are handed over.
			else if (wanted === Infinity) this.fill(Infinity);
			return page;
		}
		if (this.plan) await this.settle();
		return readListPage(this.node, await this.get(nextUrl), pageNo, this.itemIndex);
	}

	/** Starts pages until `concurrency` are ahead of the reader, or their records cover `wanted`. */
	private fill(wanted: number): void {
		const plan = this.plan as PagePlan;
		let covered = this.queue.reduce((sum, q) => sum + expectedLength(plan, q.page), 0);
		while (this.queue.length < this.concurrency && this.nextPage <= plan.lastPage && covered < wanted) {
			const page = this.nextPage++;
			const url = pageUrl(plan, page);
			const response = this.get(url);
			// Read in order by read(); one that fails after the reader stopped must not go unhandled.
			response.catch(() => undefined);
			this.queue.push({ page, url, response });
			covered += expectedLength(plan, page);
		}
	}

	/** Waits for the pages still in flight (their outcome no longer matters) and drops the plan. */
	async settle(): Promise<void> {
		this.plan = undefined;
		await Promise.allSettled(this.queue.splice(0).map((q) => q.response));
	}
}

/** Pages in a row that bring no record not already returned before reading stops with an error. */
const STALE_PAGES = 3;

/** What one read of a list has seen so far. */
interface ReadState {
	/** Pages read (by pageKey): a `next` back to one of them ends the list. */
	fetched: Set<string>;
	seen: Set<string>;
	yielded: number;
	pages: number;
	/** Pages in a row with no record not seen before (handed over or not kept: progress, whatever `keep` says). */
	stale: number;
	repeated: number;
	firstCount?: number;
	lastCount?: number;
}

const RECORD_NOUN: Record<string, string> = { appointment_key: 'an appointment', webhook_key: 'a webhook subscription' };

/**
 * The page's records not handed over before and kept, up to the limit; one whose key came before is counted, not
 * kept. A record without its key is not a record of the list (a message, an empty object): the read fails there.
 */
function freshRecords<T>(node: INode, page: ListPage, read: ReadState, opts: PaginateOptions): T[] {
	const fresh: T[] = [];
	const room = opts.limit === undefined ? Infinity : opts.limit - read.yielded;
	const fields = opts.keyField ? [opts.keyField] : ['appointment_key', 'webhook_key'];
	let unseen = 0;
	for (let i = 0; i < page.records.length && fresh.length < room; i++) {
		const record = page.records[i];
		const value = fields.map((f) => record[f]).find((v) => typeof v === 'string' || typeof v === 'number');
		if (value === undefined) {
			throw new NodeOperationError(
				node,
				`The service's list answer held a record without ${fields.join(' or ')} at position ${i + 1} of page ${read.pages}, so it is not ${fields.map((f) => RECORD_NOUN[f] ?? 'a record').join(' or ')}`,
				{ itemIndex: opts.itemIndex, description: `GET ${page.url}: every element of "results" must be a record with its ${fields.join(' or ')}` },
			);
		}
		const key = String(value);
		if (read.seen.has(key)) {
			read.repeated++;
			continue;
		}
		read.seen.add(key);
		unseen++;
		if (opts.keep === undefined || opts.keep(record)) fresh.push(record as T);
	}
	read.stale = unseen === 0 ? read.stale + 1 : 0;
	return fresh;
}

/** Stops a read that makes no progress (pages that bring nothing new) or that reached `maxPages`. */
function checkProgress(node: INode, read: ReadState, page: ListPage, nextUrl: string, maxPages: number, itemIndex?: number): void {
	if (read.stale >= STALE_PAGES) {
		throw new NodeOperationError(
			node,
			`Stopped reading: the service answered ${read.stale} pages in a row with nothing not already returned, and still offered more`,
			{ itemIndex, description: `The last page was ${page.url}; its "next" was ${nextUrl}` },
		);
	}
	if (read.pages >= maxPages) {
		throw new NodeOperationError(node, `Stopped after ${maxPages} pages while the service still offered more; narrow the filters or use a limit`, { itemIndex });
	}
}

/** Tells the user, where n8n shows it (a hint on the node's output) and in the log, what a read could not promise. */
function noticeChanges(ctx: TransportContext, read: ReadState): void {
	if (read.lastCount === read.firstCount && read.repeated === 0) return;
	const what =
		read.lastCount !== read.firstCount
			? `The list changed while it was read (the service's count went from ${read.firstCount} to ${read.lastCount})`
			: `${read.repeated} record${read.repeated === 1 ? '' : 's'} came more than once, so the list probably changed while it was read`;
	const message = `${what}: each record was returned once, but records added, removed or moved during the read may be missing. Run again for a complete list.`;
	ctx.logger?.warn(`Appointments: ${message}`);
	if ('addExecutionHints' in ctx && typeof ctx.addExecutionHints === 'function') {
		ctx.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
	}
}

/**
 * Yields each page's records not returned before (never an empty array), in the service's order; whole pages,
 * not single records, since each value an async generator yields costs a few promise turns. Every error is
 * redacted on its way out: the links and pages it may quote are the service's.
 */
export async function* paginate<T = IDataObject>(
	ctx: TransportContext,
	path: string,
	qs?: IDataObject,
	opts: PaginateOptions = {},
): AsyncGenerator<T[]> {
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
	// One wait for all pages: a 429 on one pauses them all, and Max Retry Wait bounds the whole list.
	const requestOpts = { itemIndex, policy: opts.policy, resource: opts.resource, sharedWait: { pausedUntil: 0, waitedMs: 0 } };
	const get: Get = async (url) => await apiRequestUrl<unknown>(ctx, 'GET', url, requestOpts);
	let page = readListPage(node, await apiRequest<unknown>(ctx, 'GET', path, { ...requestOpts, qs }), 1, itemIndex);
	const listPath = listPathOf(page.url);
	const read: ReadState = { fetched: new Set([pageKey(page.url)]), seen: new Set(), yielded: 0, pages: 1, stale: 0, repeated: 0, firstCount: page.count, lastCount: page.count };
	const ahead = new Ahead(node, Math.max(1, Math.floor(opts.pageConcurrency ?? 1)), maxPages, get, itemIndex);
	try {
		for (;;) {
			const fresh = freshRecords<T>(node, page, read, opts);
			if (fresh.length > 0) {
				read.yielded += fresh.length;
				yield fresh;
			}
			if (limit !== undefined && read.yielded >= limit) return;
			if (page.count !== undefined) read.lastCount = page.count;
			if (page.records.length === 0 || page.next === undefined) return;
			const nextUrl = followLink(node, baseUrl, listPath, page.next, page.url, itemIndex);
			if (read.fetched.has(pageKey(nextUrl))) return;
			checkProgress(node, read, page, nextUrl, maxPages, itemIndex);
			read.pages++;
			page = await ahead.read(page, nextUrl, read.pages, limit === undefined ? Infinity : limit - read.yielded);
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
	for await (const records of paginate<T>(ctx, path, qs, opts)) {
		for (const record of records) out.push(record);
	}
	return out;
}
