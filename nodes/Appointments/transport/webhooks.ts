/**
 * Webhook subscription requests.
 *
 *   interface WebhookInput { url: string; events: string[] }
 *   listWebhooks(ctx, opts?: { itemIndex?, policy? }): Promise<IDataObject[]>     (array or {results[, next]})
 *   createWebhook(ctx, input: WebhookInput, opts?: { itemIndex?, policy? }): Promise<IDataObject>
 *   updateWebhook(ctx, key: string, input: WebhookInput, opts?: { itemIndex?, policy? }): Promise<IDataObject>  (PUT)
 *   deleteWebhook(ctx, key: string, opts?: { notFoundIsSuccess?: boolean, itemIndex?, policy? })
 *       : Promise<{ deleted: true; webhook_key: string; alreadyGone?: true }>
 *   validateWebhookInput(ctx, input, itemIndex?): WebhookInput     (throws NodeOperationError before any request)
 *   validateWebhookUrl(ctx, url, itemIndex?): string               the URL check alone (absolute, https)
 *   sameEvents(a: unknown, b: string[]): boolean
 *
 * POST is not idempotent: when a create times out, is reset or gets a 5xx other than 503, the list is read
 * first and a subscription with the same URL and events is adopted instead of sending the create again, so a
 * lost answer never leaves a second subscription. After a time-out the create is never sent again (the service
 * may still store it): the list is watched until it shows up or the wait budget is spent. 429/503 (not
 * processed) and refused connections are retried.
 */
import { NodeOperationError, type IDataObject } from 'n8n-workflow';

import { paginateAll } from './paginate';
import { apiRequest, responseError, type ApiResponse, type RequestPolicy, type TransportContext } from './request';

export interface WebhookInput {
	url: string;
	events: string[];
}

type Opts = { itemIndex?: number; policy?: Partial<RequestPolicy> };

function itemText(itemIndex?: number): string {
	return itemIndex === undefined ? '' : ` (item ${itemIndex})`;
}

export function validateWebhookUrl(ctx: TransportContext, raw: unknown, itemIndex?: number): string {
	const node = ctx.getNode();
	const url = typeof raw === 'string' ? raw.trim() : '';
	let parsed: URL | undefined;
	try {
		parsed = new URL(url);
	} catch {
		// reported below
	}
	if (!parsed) {
		throw new NodeOperationError(
			node,
			`The field "URL"${itemText(itemIndex)} must be an absolute HTTPS address (got "${String(raw ?? '')}")`,
			{ itemIndex },
		);
	}
	if (parsed.protocol !== 'https:') {
		throw new NodeOperationError(
			node,
			`The field "URL"${itemText(itemIndex)} must use https: the service only accepts HTTPS callback URLs (got "${url}")`,
			{ itemIndex },
		);
	}
	return url;
}

export function validateWebhookInput(
	ctx: TransportContext,
	input: WebhookInput,
	itemIndex?: number,
): WebhookInput {
	const node = ctx.getNode();
	const url = validateWebhookUrl(ctx, input?.url, itemIndex);
	const events = Array.isArray(input?.events)
		? input.events.map((e) => (typeof e === 'string' ? e.trim() : '')).filter((e) => e !== '')
		: [];
	if (events.length === 0) {
		throw new NodeOperationError(
			node,
			`The field "Events"${itemText(itemIndex)} must list at least one event`,
			{ itemIndex },
		);
	}
	return { url, events: [...new Set(events)] };
}

export function sameEvents(a: unknown, b: string[]): boolean {
	if (!Array.isArray(a)) return false;
	const left = new Set(a.map(String));
	const right = new Set(b);
	return left.size === right.size && [...left].every((e) => right.has(e));
}

export async function listWebhooks(ctx: TransportContext, opts: Opts = {}): Promise<IDataObject[]> {
	return await paginateAll<IDataObject>(ctx, 'webhooks/', undefined, {
		itemIndex: opts.itemIndex,
		policy: opts.policy,
		keyField: 'webhook_key',
		resource: 'webhooks',
	});
}

export async function createWebhook(
	ctx: TransportContext,
	input: WebhookInput,
	opts: Opts = {},
): Promise<IDataObject> {
	const body = validateWebhookInput(ctx, input, opts.itemIndex);
	const response = await apiRequest<IDataObject>(
		ctx,
		'POST',
		'webhooks/',
		{
			body: { url: body.url, events: body.events },
			itemIndex: opts.itemIndex,
			policy: opts.policy,
			resource: 'webhooks',
			idempotent: false,
		},
		{
			// Everything transient is retried, but an answer that may have been lost after the service stored the
			// subscription (time-out, reset, 5xx) is first checked against the list.
			retryable: (outcome) =>
				outcome.kind === 'network' ||
				[429, 500, 502, 503, 504].includes(outcome.statusCode),
			// After a time-out the service may still be working on the create (a slow service stores it later):
			// sending it again could store a second subscription, so the list is watched instead until the
			// subscription shows up or the wait budget is spent. After a reset or a 5xx answer, the attempt is over:
			// not in the list means not stored, so it is sent again.
			beforeRetry: async (outcome): Promise<ApiResponse | undefined | 'hold'> => {
				const existing = await listWebhooks(ctx, opts);
				const match = existing.find((w) => w.url === body.url && sameEvents(w.events, body.events));
				if (!match) return outcome.kind === 'network' && outcome.timedOut ? 'hold' : undefined;
				ctx.logger?.debug('Appointments API: adopted the webhook stored by an unanswered create');
				return { statusCode: 200, body: match, attempts: 0, url: '' };
			},
		},
	);
	return (response.body ?? {}) as IDataObject;
}

export async function updateWebhook(
	ctx: TransportContext,
	key: string,
	input: WebhookInput,
	opts: Opts = {},
): Promise<IDataObject> {
	const body = validateWebhookInput(ctx, input, opts.itemIndex);
	const response = await apiRequest<IDataObject>(ctx, 'PUT', `webhooks/${encodeURIComponent(key)}/`, {
		body: { url: body.url, events: body.events },
		itemIndex: opts.itemIndex,
		policy: opts.policy,
		resource: `Webhook ${key}`,
	});
	return (response.body ?? { webhook_key: key, url: body.url, events: body.events }) as IDataObject;
}

export async function deleteWebhook(
	ctx: TransportContext,
	key: string,
	opts: Opts & { notFoundIsSuccess?: boolean } = {},
): Promise<{ deleted: true; webhook_key: string; alreadyGone?: true }> {
	const response = await apiRequest(ctx, 'DELETE', `webhooks/${encodeURIComponent(key)}/`, {
		itemIndex: opts.itemIndex,
		policy: opts.policy,
		resource: `Webhook ${key}`,
		allowStatus: [404],
	});
	if (response.statusCode === 404) {
		// A 404 after a failed first attempt means that attempt deleted it.
		if (opts.notFoundIsSuccess || response.afterAmbiguousFailure) {
			return { deleted: true, webhook_key: key, alreadyGone: true };
		}
		throw await responseError(ctx, response, 'DELETE', { itemIndex: opts.itemIndex, resource: `Webhook ${key}` });
	}
	return { deleted: true, webhook_key: key };
}
