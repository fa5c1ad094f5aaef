/**
 * One list answer, read, and where its `next` may lead: any shape the service may use, every record a JSON object;
 * a `next` only on the credential's origin and inside the list's path (issue 10: a link out of the list is refused).
 */
import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

import { resolveSameOrigin } from '../http/apiUrls';

export type ListPage = { url: string; records: IDataObject[]; next?: string; count?: number };

function describe(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	if (typeof value === 'string') return `the text "${value.length > 40 ? `${value.slice(0, 37)}...` : value}"`;
	return `${typeof value} ${String(value)}`;
}

/**
 * `{results, next, count}`, `{results}`, a bare array or a 204 without body. A record that is not an object fails
 * here, with its position, instead of as a TypeError further on; so does a 200 without body (a proxy's, not an
 * empty list).
 */
export function readListPage(node: INode, response: { url: string; body: unknown; statusCode: number }, pageNo: number, itemIndex?: number): ListPage {
	const { url, body, statusCode } = response;
	const b = body as IDataObject | undefined;
	const page: ListPage = { url, records: [] };
	if (Array.isArray(body)) page.records = body as IDataObject[];
	else if (b && typeof b === 'object' && Array.isArray(b.results)) {
		page.records = b.results as IDataObject[];
		if (typeof b.next === 'string' && b.next.trim() !== '') page.next = b.next.trim();
		if (typeof b.count === 'number' && Number.isInteger(b.count) && b.count >= 0) page.count = b.count;
	} else if (body !== undefined || statusCode !== 204) {
		throw new NodeOperationError(node, 'Unexpected list response from the service: expected a JSON array or an object with a "results" array', {
			itemIndex,
			description: `GET ${url} answered ${statusCode}${body === undefined ? ' with an empty body' : ''}`,
		});
	}
	const bad = (page.records as unknown[]).findIndex((r) => r === null || typeof r !== 'object' || Array.isArray(r));
	if (bad === -1) return page;
	throw new NodeOperationError(node, `The service's list answer held a record that is not an object: ${describe(page.records[bad])} at position ${bad + 1} of page ${pageNo}`, {
		itemIndex,
		description: `GET ${url}: every element of "results" must be a JSON object`,
	});
}

/** A path as the service serves it: percent-decoded once (a `%2F` or `%5C` counts as a separator), dot segments resolved. */
function servedPath(pathname: string): string | undefined {
	try {
		return new URL(`http://h${decodeURIComponent(pathname).replace(/\\/g, '/').replace(/[?#]/g, encodeURIComponent)}`).pathname;
	} catch {
		return undefined;
	}
}

/**
 * What identifies a page however the service writes its URL: origin, path as served, and the query as a multiset of
 * decoded parameters (Django REST framework's `replace_query_param` sorts them, say).
 */
export function pageKey(url: string): string {
	const u = new URL(url);
	const params = [...u.searchParams].map((pair) => JSON.stringify(pair)).sort();
	return `${u.origin}${servedPath(u.pathname) ?? u.pathname}?${params.join('&')}`;
}

/** The list endpoint's path (from the first request's URL), which every `next` must stay inside. */
export function listPathOf(firstUrl: string): string {
	const { pathname } = new URL(firstUrl);
	return servedPath(pathname) ?? pathname;
}

/** `next` resolved against its page; one on another origin or whose path leaves the list is refused, nothing sent. */
export function followLink(node: INode, baseUrl: string, listPath: string, link: string, current: string, itemIndex?: number): string {
	const url = resolveSameOrigin(baseUrl, link, current);
	if (url === undefined) {
		const shown = URL.canParse(link, current) ? new URL(link, current).origin : link;
		throw new NodeOperationError(node, `Refusing to follow a pagination link to another origin (${shown}); only ${new URL(baseUrl).origin} is allowed`, { itemIndex });
	}
	const path = servedPath(new URL(url).pathname);
	const base = listPath.endsWith('/') ? listPath : `${listPath}/`;
	if (path === undefined || (path !== listPath && !path.startsWith(base))) {
		throw new NodeOperationError(node, `Refusing to follow a pagination link that leaves the list endpoint ${listPath} (it points to ${path ?? new URL(url).pathname})`, {
			itemIndex,
			description: 'A "next" link must stay on the list being read; nothing was sent to it',
		});
	}
	return url;
}
