/**
 * Reads a list page by page: each answer `{results, next, count}`, `{results}`, a bare array or a 204, every record a
 * JSON object with its `keyField`, handed over once when `keep` accepts it, no page requested beyond `limit`; a `next`
 * only on the credential's origin and inside the list's path (a link out of the list is refused).
 * With `pageConcurrency` > 1, pages are requested ahead when the first page allows it (pagesAhead.ts).
 * locatorPage reads one page at a time for the editor's pickers.
 */
import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { apiRequest, apiRequestUrl } from '../http/apiRequest.js';
import { resolveSameOrigin } from '../http/apiUrls.js';
import {
	credentialInfo,
	type CredentialInfo,
	type RequestPolicy,
	type TransportContext,
} from '../http/credentialInfo.js';
import { redactError } from '../http/redaction.js';
import { Ahead, pageKey, planPages, servedPath, type ListPage } from './pagesAhead.js';

function describe(value: unknown): string {
	if (typeof value === 'string')
		return `the text "${value.length > 40 ? `${value.slice(0, 37)}...` : value}"`;
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	return `${typeof value} ${String(value)}`;
}

/** The records, `next` and `count` of a list answer, or undefined when it is not one. */
function pageOf(body: unknown): Omit<ListPage, 'url'> | undefined {
	if (Array.isArray(body)) return { records: body as IDataObject[] };
	const b = body as IDataObject | undefined;
	if (!b || typeof b !== 'object' || !Array.isArray(b.results)) return undefined;
	const page: Omit<ListPage, 'url'> = { records: b.results as IDataObject[] };
	if (typeof b.next === 'string' && b.next.trim() !== '') page.next = b.next.trim();
	if (typeof b.count === 'number' && Number.isInteger(b.count) && b.count >= 0)
		page.count = b.count;
	return page;
}

/** A record that is not an object fails here, with its position, not as a TypeError further on; so does a 200 without body. */
function readListPage(
	node: INode,
	response: { url: string; body: unknown; statusCode: number },
	pageNo: number,
	itemIndex?: number,
): ListPage {
	const { url, body, statusCode } = response;
	const shape = pageOf(body);
	if (shape === undefined && (body !== undefined || statusCode !== 204)) {
		throw new NodeOperationError(
			node,
			'Unexpected list response from the service: expected a JSON array or an object with a "results" array',
			{
				itemIndex,
				description: `GET ${url} answered ${statusCode}${body === undefined ? ' with an empty body' : ''}`,
			},
		);
	}
	const page: ListPage = { url, records: [], ...shape };
	const bad = (page.records as unknown[]).findIndex(
		(r) => r === null || typeof r !== 'object' || Array.isArray(r),
	);
	if (bad === -1) return page;
	throw new NodeOperationError(
		node,
		`The service's list answer held a record that is not an object: ${describe(page.records[bad])} at position ${bad + 1} of page ${pageNo}`,
		{
			itemIndex,
			description: `GET ${url}: every element of "results" must be a JSON object`,
		},
	);
}

/** `next` resolved against its page; one on another origin or whose path leaves `listPath` is refused, nothing sent. */
function followLink(r: Reader, link: string, current: string): string {
	const { node, origin, listPath } = r;
	const itemIndex = r.opts.itemIndex;
	const url = resolveSameOrigin(origin, link, current);
	if (url === undefined) {
		const shown = URL.canParse(link, current) ? new URL(link, current).origin : link;
		throw new NodeOperationError(
			node,
			`Refusing to follow a pagination link to another origin (${shown}); only ${origin} is allowed`,
			{ itemIndex },
		);
	}
	// The list's path ends with '/', as every API path does: a path inside the list starts with it.
	const path = servedPath(url);
	if (path === undefined || !path.startsWith(listPath)) {
		throw new NodeOperationError(
			node,
			`Refusing to follow a pagination link that leaves the list endpoint ${listPath} (it points to ${path ?? new URL(url).pathname})`,
			{
				itemIndex,
				description: 'A "next" link must stay on the list being read; nothing was sent to it',
			},
		);
	}
	return url;
}

/** `maxPages` (default 10000) reached while a `next` is offered is an error; `pageConcurrency` defaults to 1. */
export type PaginateOptions = {
	limit?: number;
	itemIndex?: number;
	policy?: Partial<RequestPolicy>;
	maxPages?: number;
	keyField?: string;
	resource?: string;
	pageConcurrency?: number;
	keep?: (record: IDataObject) => boolean;
};

/** Pages in a row that bring no record not already returned before reading stops with an error. */
const STALE_PAGES = 3;

const RECORD_NOUN: Record<string, string> = {
	appointment_key: 'an appointment',
	webhook_key: 'a webhook subscription',
};

/**
 * One read under way: the list's path, the pages fetched (by pageKey: a `next` back to one ends the list), the
 * records seen, pages in a row with no new one, and the pages fetched ahead.
 */
type Reader = {
	node: INode;
	origin: string;
	listPath: string;
	opts: PaginateOptions;
	maxPages: number;
	concurrency: number;
	ahead: Ahead;
	fetched: Set<string>;
	seen: Set<string>;
	yielded: number;
	pages: number;
	stale: number;
	repeated: number;
	firstCount?: number;
	lastCount?: number;
};

/** The page's records not handed over before and kept, up to the limit; a record without its key fails the read. */
function freshRecords<T>(r: Reader, page: ListPage): T[] {
	const { opts } = r;
	const fresh: T[] = [];
	const room = opts.limit === undefined ? Infinity : opts.limit - r.yielded;
	const field = opts.keyField ?? 'appointment_key';
	let unseen = 0;
	for (let i = 0; i < page.records.length && fresh.length < room; i++) {
		const record = page.records[i];
		const key = record[field];
		if (typeof key !== 'string' && typeof key !== 'number') {
			const description = `GET ${page.url}: every element of "results" must be a record with its ${field}`;
			throw new NodeOperationError(
				r.node,
				`The service's list answer held a record without ${field} at position ${i + 1} of page ${r.pages}, so it is not ${RECORD_NOUN[field] ?? 'a record'}`,
				{ itemIndex: opts.itemIndex, description },
			);
		}
		const id = String(key);
		if (r.seen.has(id)) r.repeated++;
		else {
			r.seen.add(id);
			unseen++;
			if (opts.keep === undefined || opts.keep(record)) fresh.push(record as T);
		}
	}
	r.stale = unseen === 0 ? r.stale + 1 : 0;
	return fresh;
}

/** Tells the user, where n8n shows it (a hint on the node's output) and in the log, what a read could not promise. */
function noticeChanges(ctx: TransportContext, r: Reader): void {
	if (r.lastCount === r.firstCount && r.repeated === 0) return;
	const what =
		r.lastCount !== r.firstCount
			? `The list changed while it was read (the service's count went from ${r.firstCount} to ${r.lastCount})`
			: `${r.repeated} record${r.repeated === 1 ? '' : 's'} came more than once, so the list probably changed while it was read`;
	const message = `${what}: each record was returned once, but records added, removed or moved during the read may be missing. Run again for a complete list.`;
	ctx.logger?.warn(`Appointments: ${message}`);
	if ('addExecutionHints' in ctx && typeof ctx.addExecutionHints === 'function')
		ctx.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
}

/**
 * Yields each page's records not returned before (never an empty array: whole pages, each yield costs promise turns),
 * in the service's order. Every error goes out redacted: the links and pages it may quote are the service's.
 */
export async function* paginate<T = IDataObject>(
	ctx: TransportContext,
	path: string,
	qs?: IDataObject,
	opts: PaginateOptions = {},
): AsyncGenerator<T[]> {
	const info = await credentialInfo(ctx);
	try {
		if (opts.limit !== undefined && opts.limit <= 0) return;
		const [r, first] = await startRead(ctx, info, path, qs, opts);
		try {
			for (let page: ListPage | undefined = first; page; page = await nextPage(r, page)) {
				const fresh = freshRecords<T>(r, page);
				r.yielded += fresh.length;
				if (fresh.length > 0) yield fresh;
				if (opts.limit !== undefined && r.yielded >= opts.limit) return;
				if (page.count !== undefined) r.lastCount = page.count;
			}
		} finally {
			await r.ahead.settle();
			noticeChanges(ctx, r);
		}
	} catch (error) {
		throw redactError(error, info.secrets);
	}
}

/** The page after `page`, or undefined when the list ends there (no `next`, or one back to a page already read). */
async function nextPage(r: Reader, page: ListPage): Promise<ListPage | undefined> {
	const { opts } = r;
	if (page.records.length === 0 || page.next === undefined) return undefined;
	const nextUrl = followLink(r, page.next, page.url);
	const key = pageKey(nextUrl);
	if (r.fetched.has(key)) return undefined;
	// Reading must stop although the service offers more: pages in a row with nothing new, or `maxPages` read.
	if (r.stale >= STALE_PAGES) {
		const description = `The last page was ${page.url}; its "next" was ${nextUrl}`;
		throw new NodeOperationError(
			r.node,
			`Stopped reading: the service answered ${r.stale} pages in a row with nothing not already returned, and still offered more`,
			{ itemIndex: opts.itemIndex, description },
		);
	}
	if (r.pages >= r.maxPages) {
		throw new NodeOperationError(
			r.node,
			`Stopped after ${r.maxPages} pages while the service still offered more; narrow the filters or use a limit`,
			{ itemIndex: opts.itemIndex },
		);
	}
	if (r.pages++ === 1 && r.concurrency > 1) r.ahead.plan = planPages(page, nextUrl, r.maxPages);
	const wanted = opts.limit === undefined ? Infinity : opts.limit - r.yielded;
	const response = await r.ahead.read(nextUrl, key, wanted);
	const next = readListPage(r.node, response, r.pages, opts.itemIndex);
	r.fetched.add(key);
	return next;
}

/** The first page, and the read it starts. */
async function startRead(
	ctx: TransportContext,
	info: CredentialInfo,
	path: string,
	qs: IDataObject | undefined,
	opts: PaginateOptions,
): Promise<[Reader, ListPage]> {
	const node = ctx.getNode();
	// One wait for all pages: a 429 on one pauses them all, and the retry wait budget bounds the whole list; one credential read.
	const { itemIndex, policy, resource } = opts;
	const sharedWait = { pausedUntil: 0, waitedMs: 0 };
	const requestOpts = { itemIndex, policy, resource, sharedWait, info };
	const first = await apiRequest<unknown>(ctx, 'GET', path, { ...requestOpts, qs });
	const page = readListPage(node, first, 1, itemIndex);
	const concurrency = Math.max(1, Math.floor(opts.pageConcurrency ?? 1));
	const get = async (url: string) => await apiRequestUrl<unknown>(ctx, 'GET', url, requestOpts);
	const reader: Reader = {
		...{ node, origin: info.origin, opts, concurrency, maxPages: opts.maxPages ?? 10000 },
		listPath: servedPath(page.url) ?? new URL(page.url).pathname,
		ahead: new Ahead(get, concurrency),
		fetched: new Set([pageKey(page.url)]),
		seen: new Set(),
		yielded: 0,
		pages: 1,
		stale: 0,
		repeated: 0,
		firstCount: page.count,
		lastCount: page.count,
	};
	return [reader, page];
}

/**
 * One page of a list for a resource locator: the first page of `list` with `qs`, a later one from the `next`
 * link handed back as the pagination token. The token comes back from the browser, so apiRequestUrl checks
 * its origin again before anything is sent.
 */
export async function locatorPage(
	ctx: TransportContext,
	list: 'appointments' | 'webhooks',
	qs: IDataObject | undefined,
	paginationToken: string | undefined,
): Promise<{ records: IDataObject[]; next: string | undefined }> {
	const info = await credentialInfo(ctx);
	const response = paginationToken
		? await apiRequestUrl<unknown>(ctx, 'GET', paginationToken, { resource: list, info })
		: await apiRequest<unknown>(ctx, 'GET', `${list}/`, { qs, resource: list, info });
	const { records = [], next } = pageOf(response.body) ?? {};
	if (records.length === 0 || next === undefined) return { records, next: undefined };
	return { records, next: resolveSameOrigin(info.origin, next, response.url) };
}

export async function paginateAll<T = IDataObject>(
	ctx: TransportContext,
	path: string,
	qs?: IDataObject,
	opts: PaginateOptions = {},
): Promise<T[]> {
	const out: T[] = [];
	for await (const records of paginate<T>(ctx, path, qs, opts)) out.push(...records);
	return out;
}
