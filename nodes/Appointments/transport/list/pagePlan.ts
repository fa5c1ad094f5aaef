import type { INode } from 'n8n-workflow';

import type { ApiResponse } from '../http';
import { pageKey, readListPage, type ListPage } from './listPage';

/**
 * Page-number paging, proven by the first page: a `count`, and an absolute `next` that is the request's own URL
 * with one query parameter set to the following page number. Then every page's URL is known in advance and
 * the pages can be fetched several at a time. Nothing here is guessed: each page is checked against what was
 * predicted (count, length, `previous`), and the caller follows `next` itself from the first page that differs.
 */
export interface PagePlan {
	param: string;
	/** Page number of the first answer. */
	firstPage: number;
	lastPage: number;
	pageSize: number;
	count: number;
	firstUrl: string;
	/** The first page's `next`, resolved: the template for every other page's URL. */
	template: string;
	hasPrevious: boolean;
}

/** The same values in any order: a service that rewrites its links may reorder a repeated parameter too. */
function sameValues(a: string[], b: string[]): boolean {
	const sorted = (values: string[]) => JSON.stringify([...values].sort());
	return sorted(a) === sorted(b);
}

const PAGE_NUMBER = /^[1-9]\d{0,8}$/;

export function planPages(first: ListPage, nextUrl: string, maxPages: number): PagePlan | undefined {
	if (first.count === undefined || first.records.length === 0 || first.next === undefined) return undefined;
	// A relative link says nothing about how the service builds its URLs: follow it as given.
	if (!/^https?:\/\//i.test(first.next)) return undefined;
	const from = new URL(first.url);
	const to = new URL(nextUrl);
	if (from.origin !== to.origin || from.pathname !== to.pathname) return undefined;
	const names = new Set([...from.searchParams.keys(), ...to.searchParams.keys()]);
	const differing = [...names].filter((n) => !sameValues(from.searchParams.getAll(n), to.searchParams.getAll(n)));
	if (differing.length !== 1) return undefined;
	const param = differing[0];
	const was = from.searchParams.getAll(param);
	const now = to.searchParams.getAll(param);
	if (now.length !== 1 || !PAGE_NUMBER.test(now[0]) || was.length > 1) return undefined;
	if (was.length === 1 && !PAGE_NUMBER.test(was[0])) return undefined;
	const firstPage = was.length ? Number(was[0]) : 1;
	if (Number(now[0]) !== firstPage + 1) return undefined;
	const pageSize = first.records.length;
	const lastPage = Math.ceil(first.count / pageSize);
	if (first.count <= firstPage * pageSize || lastPage > maxPages) return undefined;
	return {
		param,
		firstPage,
		lastPage,
		pageSize,
		count: first.count,
		firstUrl: first.url,
		template: nextUrl,
		hasPrevious: first.hasPrevious,
	};
}

export function pageUrl(plan: PagePlan, page: number): string {
	if (page === plan.firstPage + 1) return plan.template;
	const u = new URL(plan.template);
	u.searchParams.set(plan.param, String(page));
	return u.href;
}

function expectedLength(plan: PagePlan, page: number): number {
	return Math.max(0, Math.min(plan.pageSize, plan.count - (page - 1) * plan.pageSize));
}

function linkIs(link: unknown, from: string, candidates: string[]): boolean {
	if (typeof link !== 'string') return false;
	try {
		const resolved = pageKey(new URL(link, from).href);
		return candidates.some((c) => pageKey(c) === resolved);
	} catch {
		return false;
	}
}

/** Whether a fetched page is the one predicted. Its `next` is checked by the caller when it follows it. */
function asPredicted(plan: PagePlan, page: number, read: ListPage): boolean {
	if (read.count !== plan.count || read.records.length !== expectedLength(plan, page)) return false;
	if (page === plan.lastPage && read.next !== undefined) return false;
	if (plan.hasPrevious) {
		const before = [pageUrl(plan, page - 1)];
		if (page - 1 === plan.firstPage) {
			const withoutParam = new URL(plan.firstUrl);
			withoutParam.searchParams.delete(plan.param);
			before.push(plan.firstUrl, withoutParam.href);
		}
		if (!linkIs(read.previous, read.url, before)) return false;
	}
	return true;
}

/** The pages of a plan, fetched up to `concurrency` at a time ahead of the reader, handed over in order. */
export class PageFetcher {
	private nextPage: number;
	private readonly queue: Array<{ page: number; url: string; response: Promise<ApiResponse<unknown>> }> = [];

	constructor(
		private readonly node: INode,
		private readonly plan: PagePlan,
		private readonly concurrency: number,
		private readonly get: (url: string) => Promise<ApiResponse<unknown>>,
		private readonly itemIndex?: number,
	) {
		this.nextPage = plan.firstPage + 1;
	}

	/** Starts pages until `concurrency` are ahead of the reader, or their records cover `wanted`. */
	fill(wanted: number): void {
		let covered = this.queue.reduce((sum, q) => sum + expectedLength(this.plan, q.page), 0);
		while (this.queue.length < this.concurrency && this.nextPage <= this.plan.lastPage && covered < wanted) {
			const page = this.nextPage++;
			const url = pageUrl(this.plan, page);
			const response = this.get(url);
			// Read in order by take(); one that fails after the reader stopped must not go unhandled.
			response.catch(() => undefined);
			this.queue.push({ page, url, response });
			covered += expectedLength(this.plan, page);
		}
	}

	/**
	 * The page at `url` when it is the next one planned: `asPlanned` false when it differs from the prediction
	 * (the caller then follows links from it). undefined when `url` is not the next planned page.
	 */
	async take(url: string, pageNo: number): Promise<{ page: ListPage; asPlanned: boolean } | undefined> {
		const head = this.queue[0];
		if (!head || pageKey(head.url) !== pageKey(url)) return undefined;
		this.queue.shift();
		const response = await head.response;
		const page = readListPage(this.node, response, pageNo, this.itemIndex);
		return { page, asPlanned: asPredicted(this.plan, head.page, page) };
	}

	/** Waits for the pages still in flight (their outcome no longer matters). */
	async settle(): Promise<void> {
		const pending = this.queue.splice(0).map((q) => q.response);
		await Promise.allSettled(pending);
	}
}
