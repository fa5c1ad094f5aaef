import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { resolveSameOrigin } from '../http';

/** One list answer, read: its records (every one a JSON object), its `next`/`previous` as given, its `count`. */
export interface ListPage {
	url: string;
	records: IDataObject[];
	next?: string;
	previous?: unknown;
	hasPrevious: boolean;
	count?: number;
}

function describe(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	if (typeof value === 'string') return `the text "${value.length > 40 ? `${value.slice(0, 37)}...` : value}"`;
	return `${typeof value} ${String(value)}`;
}

/**
 * Reads a list answer of any shape the service may use (`{results, next, count}`, `{results}`, a bare array, a 204
 * without body). A record that is not an object fails here, with its position, instead of as a TypeError further
 * on; so does a 200 without body (a proxy's, not an empty list).
 */
export function readListPage(
	node: INode,
	response: { url: string; body: unknown; statusCode: number },
	pageNo: number,
	itemIndex?: number,
): ListPage {
	const { url, body } = response;
	let records: unknown[];
	const page: Omit<ListPage, 'records'> = { url, hasPrevious: false };
	if (Array.isArray(body)) {
		records = body;
	} else if (body && typeof body === 'object' && Array.isArray((body as IDataObject).results)) {
		const b = body as IDataObject;
		records = b.results as unknown[];
		if (typeof b.next === 'string' && b.next.trim() !== '') page.next = b.next.trim();
		page.hasPrevious = 'previous' in b;
		page.previous = b.previous;
		if (typeof b.count === 'number' && Number.isInteger(b.count) && b.count >= 0) page.count = b.count;
	} else if (body === undefined && response.statusCode === 204) {
		records = [];
	} else {
		throw new NodeOperationError(
			node,
			'Unexpected list response from the service: expected a JSON array or an object with a "results" array',
			{ itemIndex, description: `GET ${url} answered ${response.statusCode}${body === undefined ? ' with an empty body' : ''}` },
		);
	}
	for (let i = 0; i < records.length; i++) {
		const record = records[i];
		if (record === null || typeof record !== 'object' || Array.isArray(record)) {
			throw new NodeOperationError(
				node,
				`The service's list answer held a record that is not an object: ${describe(record)} at position ${i + 1} of page ${pageNo}`,
				{ itemIndex, description: `GET ${url}: every element of "results" must be a JSON object` },
			);
		}
	}
	return { ...page, records: records as IDataObject[] };
}

/**
 * A path as the service will see it: percent-decoded once, `.` and `..` segments resolved (an encoded `%2F` or a
 * backslash that decodes into a separator counts as one). undefined when it cannot be decoded.
 */
function servedPath(pathname: string): string | undefined {
	let decoded: string;
	try {
		decoded = decodeURIComponent(pathname);
	} catch {
		return undefined;
	}
	const out: string[] = [];
	for (const segment of decoded.replace(/\\/g, '/').split('/')) {
		if (segment === '.') continue;
		if (segment === '..') {
			if (out.length > 1) out.pop();
			continue;
		}
		out.push(segment);
	}
	return out.join('/');
}

/**
 * What identifies a page's URL, however the service writes it: origin, path as served, and the query as a multiset
 * of decoded parameters (a service may sort them, as Django REST framework's `replace_query_param` does, or encode
 * them otherwise). Two URLs with the same key ask for the same page.
 */
export function pageKey(url: string): string {
	const u = new URL(url);
	const params = [...u.searchParams].map(([name, value]) => JSON.stringify([name, value])).sort();
	return `${u.origin}${servedPath(u.pathname) ?? u.pathname}?${params.join('&')}`;
}

/** The list endpoint's path (from the first request's URL), which every `next` must stay inside. */
export function listPathOf(firstUrl: string): string {
	return servedPath(new URL(firstUrl).pathname) ?? new URL(firstUrl).pathname;
}

/**
 * Resolves a `next` link (absolute or relative to the page it came from) and refuses, before anything is sent,
 * one on another origin or whose path leaves the list endpoint's path.
 */
export function followLink(
	node: INode,
	baseUrl: string,
	listPath: string,
	link: string,
	current: string,
	itemIndex?: number,
): string {
	const url = resolveSameOrigin(baseUrl, link, current);
	if (url === undefined) {
		let shown = link;
		try {
			shown = new URL(link, current).origin;
		} catch {
			// unparsable: show the link as given
		}
		throw new NodeOperationError(
			node,
			`Refusing to follow a pagination link to another origin (${shown}); only ${new URL(baseUrl).origin} is allowed`,
			{ itemIndex },
		);
	}
	const path = servedPath(new URL(url).pathname);
	const base = listPath.endsWith('/') ? listPath : `${listPath}/`;
	if (path === undefined || (path !== listPath && !path.startsWith(base))) {
		throw new NodeOperationError(
			node,
			`Refusing to follow a pagination link that leaves the list endpoint ${listPath} (it points to ${path ?? new URL(url).pathname})`,
			{ itemIndex, description: 'A "next" link must stay on the list being read; nothing was sent to it' },
		);
	}
	return url;
}
