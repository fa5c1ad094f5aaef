/**
 * Pagination.
 *
 *   interface PaginateOptions { limit?: number; itemIndex?: number; policy?: Partial<RequestPolicy>;
 *                               maxPages?: number (default 10000); keyField?: string; resource?: string }
 *   paginate<T = IDataObject>(ctx, path, qs?, opts?): AsyncGenerator<T>
 *
 * Accepts every list shape: `{results, next}` (page-number or cursor links), `{results}` and a bare array.
 * Follows `next` (absolute or relative to the page it came from) only on the credential's origin: a foreign link
 * is refused with a NodeOperationError before anything is sent. Stops on: no `next`, an empty page, a `next`
 * already fetched, or `limit` records yielded (no further page is requested). Hitting `maxPages` while the
 * service still offers a `next` is an error. Records whose key (`keyField`, default `appointment_key`, then
 * `webhook_key`) was already yielded are skipped. A `count` larger than what was seen with no `next` is NOT
 * acted on: page numbers are never guessed, since the service's parameter names are not part of the spec.
 */
import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import { transportCredentialInfo, type RequestPolicy, type TransportContext } from './credential';
import { apiRequest, apiRequestUrl } from './request';
import { resolveSameOrigin } from './utils';

export interface PaginateOptions {
	limit?: number;
	itemIndex?: number;
	policy?: Partial<RequestPolicy>;
	maxPages?: number;
	keyField?: string;
	resource?: string;
}

function recordKey(record: unknown, keyField?: string): string | undefined {
	if (!record || typeof record !== 'object') return undefined;
	const r = record as IDataObject;
	const fields = keyField ? [keyField] : ['appointment_key', 'webhook_key'];
	for (const field of fields) {
		const value = r[field];
		if (typeof value === 'string' || typeof value === 'number') return String(value);
	}
	return undefined;
}

export async function* paginate<T = IDataObject>(
	ctx: TransportContext,
	path: string,
	qs?: IDataObject,
	opts: PaginateOptions = {},
): AsyncGenerator<T> {
	const limit = opts.limit;
	if (limit !== undefined && limit <= 0) return;
	const maxPages = opts.maxPages ?? 10000;
	const requestOpts = { itemIndex: opts.itemIndex, policy: opts.policy, resource: opts.resource };
	const { baseUrl } = await transportCredentialInfo(ctx);
	const fetched = new Set<string>();
	const yieldedKeys = new Set<string>();
	let yielded = 0;
	let pages = 0;

	let response = await apiRequest(ctx, 'GET', path, { ...requestOpts, qs });
	for (;;) {
		pages++;
		fetched.add(response.url);
		const body = response.body as unknown;
		let records: unknown[];
		let next: unknown;
		if (Array.isArray(body)) {
			records = body;
		} else if (body && typeof body === 'object' && Array.isArray((body as IDataObject).results)) {
			records = (body as IDataObject).results as unknown[];
			next = (body as IDataObject).next;
		} else if (body === undefined) {
			records = [];
		} else {
			throw new NodeOperationError(
				ctx.getNode(),
				'Unexpected list response from the service: expected a JSON array or an object with a "results" array',
				{ itemIndex: opts.itemIndex, description: `GET ${path}` },
			);
		}

		for (const record of records) {
			const key = recordKey(record, opts.keyField);
			if (key !== undefined) {
				if (yieldedKeys.has(key)) continue;
				yieldedKeys.add(key);
			}
			yield record as T;
			yielded++;
			if (limit !== undefined && yielded >= limit) return;
		}

		if (records.length === 0) return;
		if (typeof next !== 'string' || next.trim() === '') return;
		const nextUrl = resolveSameOrigin(baseUrl, next.trim(), response.url);
		if (nextUrl === undefined) {
			let shown = next;
			try {
				shown = new URL(next, response.url).origin;
			} catch {
				// unparsable: show the link as given
			}
			throw new NodeOperationError(
				ctx.getNode(),
				`Refusing to follow a pagination link to another origin (${shown}); only ${new URL(baseUrl).origin} is allowed`,
				{ itemIndex: opts.itemIndex },
			);
		}
		if (fetched.has(nextUrl)) return;
		if (pages >= maxPages) {
			throw new NodeOperationError(
				ctx.getNode(),
				`Stopped after ${maxPages} pages while the service still offered more; narrow the filters or use a limit`,
				{ itemIndex: opts.itemIndex },
			);
		}
		response = await apiRequestUrl(ctx, 'GET', nextUrl, requestOpts);
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
	for await (const record of paginate<T>(ctx, path, qs, opts)) out.push(record);
	return out;
}
