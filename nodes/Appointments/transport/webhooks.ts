/** Webhook subscription requests: list, update (PUT) and delete. Create, which must never double, is in createWebhook.ts. */
import type { IDataObject } from 'n8n-workflow';

import { validateWebhookInput, type WebhookInput } from '../shared/webhooks';
import type { RequestPolicy, TransportContext } from './credential';
import { responseError } from './errors';
import { paginateAll } from './paginate';
import { apiRequest } from './request';

export type WebhookOpts = { itemIndex?: number; policy?: Partial<RequestPolicy> };

/** Every subscription (a bare array or a paginated list). */
export async function listWebhooks(ctx: TransportContext, opts: WebhookOpts = {}): Promise<IDataObject[]> {
	return await paginateAll<IDataObject>(ctx, 'webhooks/', undefined, {
		itemIndex: opts.itemIndex,
		policy: opts.policy,
		keyField: 'webhook_key',
		resource: 'webhooks',
	});
}

export async function updateWebhook(
	ctx: TransportContext,
	key: string,
	input: WebhookInput,
	opts: WebhookOpts = {},
): Promise<IDataObject> {
	const body = validateWebhookInput(ctx.getNode(), input, opts.itemIndex);
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
	opts: WebhookOpts & { notFoundIsSuccess?: boolean } = {},
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
