/**
 * Reads a list page by page: every answer shape (`{results, next}` with page-number or cursor links, `{results}`,
 * a bare array), `next` followed only on the credential's origin and inside the list endpoint's path, each record
 * handed over once (by `keyField`, default `appointment_key` then `webhook_key`; a record without it fails the
 * read) when `keep` accepts it, no page requested beyond `limit` records kept.
 * With `pageConcurrency` > 1 and page-number paging proven by the first page (see pagePlan.ts), the remaining
 * pages are fetched several at a time and still handed over in the service's order.
 */
import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import {
	apiRequest,
	apiRequestUrl,
	credentialInfo,
	redactError,
	type ApiResponse,
	type RequestPolicy,
	type TransportContext,
} from '../http';
import { followLink, listPathOf, pageKey, readListPage, type ListPage } from './listPage';
import { PageFetcher, planPages } from './pagePlan';

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

/** Pages in a row that bring no record not already returned before reading stops with an error. */
const STALE_PAGES = 3;

/** What one read of a list has seen so far. */
interface ReadState {
	/** Pages read (by pageKey): a `next` back to one of them ends the list. */
	fetched: Set<string>;
	yieldedKeys: Set<string>;
	yielded: number;
	pages: number;
	/** Records of the last page not seen before, handed over or not kept: progress, whatever `keep` says. */
	unseen: number;
	stale: number;
	repeated: number;
	firstCount?: number;
	lastCount?: number;
}

const RECORD_NOUN: Record<string, string> = { appointment_key: 'an appointment', webhook_key: 'a webhook subscription' };

function recordKey(record: IDataObject, fields: string[]): string | undefined {
	for (const field of fields) {
		const value = record[field];
		if (typeof value === 'string' || typeof value === 'number') return String(value);
	}
	return undefined;
}

function keylessRecord(node: INode, fields: string[], where: string, url: string, itemIndex?: number): Error {
	const what = fields.map((f) => RECORD_NOUN[f] ?? 'a record').join(' or ');
	return new NodeOperationError(
		node,
		`The service's list answer held a record without ${fields.join(' or ')} at ${where}, so it is not ${what}`,
		{ itemIndex, description: `GET ${url}: every element of "results" must be a record with its ${fields.join(' or ')}` },
	);
}

/**
 * The page's records not handed over before and kept, up to the limit; one whose key came before is counted, not
 * kept. A record without its key is not a record of the list (a message, an empty object): the read fails there.
 */
function freshRecords<T>(node: INode, page: ListPage, read: ReadState, opts: PaginateOptions): T[] {
	const fresh: T[] = [];
	const room = opts.limit === undefined ? Infinity : opts.limit - read.yielded;
	const seen = read.yieldedKeys;
	const fields = opts.keyField ? [opts.keyField] : ['appointment_key', 'webhook_key'];
	read.unseen = 0;
	for (let i = 0; i < page.records.length; i++) {
		if (fresh.length >= room) break;
		const record = page.records[i];
		const key = recordKey(record, fields);
		if (key === undefined) throw keylessRecord(node, fields, `position ${i + 1} of page ${read.pages}`, page.url, opts.itemIndex);
		if (seen.has(key)) {
			read.repeated++;
			continue;
		}
		seen.add(key);
		read.unseen++;
		if (opts.keep === undefined || opts.keep(record)) fresh.push(record as T);
	}
	return fresh;
}

/** Stops a read that makes no progress (pages that bring nothing new) or that reached `maxPages`. */
function checkProgress(
	node: INode,
	read: ReadState,
	freshCount: number,
	where: { page: string; next: string },
	maxPages: number,
	itemIndex?: number,
): void {
	read.stale = freshCount === 0 ? read.stale + 1 : 0;
	if (read.stale >= STALE_PAGES) {
		throw new NodeOperationError(
			node,
			`Stopped reading: the service answered ${read.stale} pages in a row with nothing not already returned, and still offered more`,
			{ itemIndex, description: `The last page was ${where.page}; its "next" was ${where.next}` },
		);
	}
	if (read.pages >= maxPages) {
		throw new NodeOperationError(
			node,
			`Stopped after ${maxPages} pages while the service still offered more; narrow the filters or use a limit`,
			{ itemIndex },
		);
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
 * The pages after the first: each read from its `next`, or, with `concurrency` > 1 and page-number paging proven
 * by the first page (pagePlan.ts), fetched ahead and handed over in order until one differs from the plan.
 */
class NextPages {
	private fetcher: PageFetcher | undefined;

	constructor(
		private readonly node: INode,
		private readonly concurrency: number,
		private readonly maxPages: number,
		private readonly get: (url: string) => Promise<ApiResponse<unknown>>,
		private readonly itemIndex?: number,
	) {}

	/** Page `pageNo` at `nextUrl`, the `next` of `current`, while `wanted` records are still to be handed over. */
	async read(current: ListPage, nextUrl: string, pageNo: number, wanted: number): Promise<ListPage> {
		if (pageNo === 2 && this.concurrency > 1) {
			const plan = planPages(current, nextUrl, this.maxPages);
			if (plan) this.fetcher = new PageFetcher(this.node, plan, this.concurrency, this.get, this.itemIndex);
		}
		if (this.fetcher) {
			this.fetcher.fill(wanted);
			const planned = await this.fetcher.take(nextUrl, pageNo);
			// A page that differs ends the plan: links are followed from it on.
			if (!planned?.asPlanned) await this.settle();
			// Keep the window full while this page's records are handed over.
			else if (wanted === Infinity) this.fetcher.fill(Infinity);
			if (planned) return planned.page;
		}
		const next = await this.get(nextUrl);
		return readListPage(this.node, next, pageNo, this.itemIndex);
	}

	/** Waits for the pages still in flight (their outcome no longer matters). */
	async settle(): Promise<void> {
		await this.fetcher?.settle();
		this.fetcher = undefined;
	}
}

/**
 * Yields each page's records not returned before (never an empty array), in the service's order. Whole pages,
 * not single records: an async generator pays a few promise turns per value, about 4 % of Get Many's CPU when
 * it handed over each record (bench/README.md). Every error is redacted on its way out: the links and pages it
 * may quote are the service's.
 */
export async function* paginate<T = IDataObject>(
	ctx: TransportContext,
	path: string,
	qs?: IDataObject,
	opts: PaginateOptions = {},
): AsyncGenerator<T[]> {
	const info = await credentialInfo(ctx);
	try {
		yield* readPages<T>(ctx, info.baseUrl, path, qs, opts);
	} catch (error) {
		throw redactError(error, info.secrets);
	}
}

async function* readPages<T>(
	ctx: TransportContext,
	baseUrl: string,
	path: string,
	qs: IDataObject | undefined,
	opts: PaginateOptions,
): AsyncGenerator<T[]> {
	const limit = opts.limit;
	if (limit !== undefined && limit <= 0) return;
	const node = ctx.getNode();
	const itemIndex = opts.itemIndex;
	const maxPages = opts.maxPages ?? 10000;
	// One wait for all pages: a 429 on one pauses them all, and Max Retry Wait bounds the whole list.
	const requestOpts = { itemIndex, policy: opts.policy, resource: opts.resource, sharedWait: { pausedUntil: 0, waitedMs: 0 } };
	const get = async (url: string) => await apiRequestUrl<unknown>(ctx, 'GET', url, requestOpts);

	const response = await apiRequest<unknown>(ctx, 'GET', path, { ...requestOpts, qs });
	let page: ListPage = readListPage(node, response, 1, itemIndex);
	const listPath = listPathOf(response.url);
	const read: ReadState = {
		fetched: new Set([pageKey(page.url)]),
		yieldedKeys: new Set(),
		yielded: 0,
		pages: 1,
		unseen: 0,
		stale: 0,
		repeated: 0,
		firstCount: page.count,
		lastCount: page.count,
	};
	const concurrency = Math.max(1, Math.floor(opts.pageConcurrency ?? 1));
	const nextPages = new NextPages(node, concurrency, maxPages, get, itemIndex);
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
			checkProgress(node, read, read.unseen, { page: page.url, next: nextUrl }, maxPages, itemIndex);
			read.pages++;
			const wanted = limit === undefined ? Infinity : limit - read.yielded;
			page = await nextPages.read(page, nextUrl, read.pages, wanted);
			read.fetched.add(pageKey(page.url));
		}
	} finally {
		await nextPages.settle();
		noticeChanges(ctx, read);
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
