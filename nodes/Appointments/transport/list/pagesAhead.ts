/**
 * Page Concurrency: the pages of a list requested ahead of the reader, when its first page proves page-number paging
 * (a `count`, an absolute `next` that is its URL with one parameter set to the next page number). A page fetched
 * ahead is used only when the `next` being followed is its URL (pageKey), so the service's links still rule.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ApiResponse } from '../http/apiRequest.js';

export type ListPage = { url: string; records: IDataObject[]; next?: string; count?: number };

/** A URL's path as the service serves it: percent-decoded once (a `%2F` or `%5C` counts as a separator), dots resolved. */
export function servedPath(url: string): string | undefined {
	try {
		const decoded = decodeURIComponent(new URL(url).pathname).replace(/\\/g, '/');
		return new URL(`http://h${decoded.replace(/[?#]/g, encodeURIComponent)}`).pathname;
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
	return `${u.origin}${servedPath(url) ?? u.pathname}?${params.join('&')}`;
}

/** Page-number paging as the first page proved it: page `n` is `template` with `param` set to `n`. */
type PagePlan = {
	template: URL;
	param: string;
	nextPage: number;
	lastPage: number;
	pageSize: number;
};

const PAGE_NUMBER = /^[1-9]\d{0,8}$/;

/** The plan the first (non-empty) page proves, or undefined (then `next` is followed as given). */
export function planPages(
	first: ListPage,
	nextUrl: string,
	maxPages: number,
): PagePlan | undefined {
	// A relative link says nothing about how the service builds its URLs.
	if (first.count === undefined || !/^https?:\/\//i.test(first.next ?? '')) return undefined;
	const [from, to] = [new URL(first.url), new URL(nextUrl)];
	// The same values in any order: a service that rewrites its links may reorder a repeated parameter too.
	const values = (u: URL, n: string) => JSON.stringify(u.searchParams.getAll(n).sort());
	const differing = [...new Set([...from.searchParams.keys(), ...to.searchParams.keys()])].filter(
		(n) => values(from, n) !== values(to, n),
	);
	if (from.origin !== to.origin || from.pathname !== to.pathname || differing.length !== 1)
		return undefined;
	const [was, now] = [from, to].map((u) => u.searchParams.getAll(differing[0]));
	const firstPage = was.length ? Number(was[0]) : 1;
	const pageSize = first.records.length;
	const lastPage = Math.ceil(first.count / pageSize);
	if (
		was.length > 1 ||
		(was.length === 1 && !PAGE_NUMBER.test(was[0])) ||
		now.length !== 1 ||
		now[0] !== String(firstPage + 1) ||
		first.count <= firstPage * pageSize ||
		lastPage > maxPages
	)
		return undefined;
	return { template: to, param: differing[0], nextPage: firstPage + 1, lastPage, pageSize };
}

/** The pages requested ahead of the reader, in order, and the plan that predicts them. */
export class Ahead {
	plan: PagePlan | undefined;
	private readonly queue: Array<{ key: string; response: Promise<ApiResponse<unknown>> }> = [];

	constructor(
		private readonly get: (url: string) => Promise<ApiResponse<unknown>>,
		private readonly concurrency: number,
	) {}

	/** The page fetched ahead when it is `nextUrl`'s (`key` its pageKey), else (the plan ends) `nextUrl` requested now. */
	async read(nextUrl: string, key: string, wanted: number): Promise<ApiResponse<unknown>> {
		this.fill(wanted);
		if (this.queue[0]?.key === key) {
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
		while (
			plan &&
			this.queue.length < this.concurrency &&
			plan.nextPage <= plan.lastPage &&
			this.queue.length * plan.pageSize < wanted
		) {
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
