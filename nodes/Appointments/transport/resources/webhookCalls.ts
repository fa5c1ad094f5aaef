/** Webhook subscription requests: list, update (PUT) and delete. Create, which must never double, is in createWebhook.ts. */
import type { IDataObject } from 'n8n-workflow';

import { keyOf, type WebhookInput } from '../../shared/webhookInput';
import { recordOf, responseError, unconfirmedError } from '../http/apiErrors';
import { apiRequest } from '../http/apiRequest';
import type { RequestPolicy, TransportContext } from '../http/credentialInfo';
import { paginateAll } from '../list/paginate';

export type WebhookOpts = { itemIndex?: number; policy?: Partial<RequestPolicy> };

/** Every subscription (a bare array or a paginated list). */
export async function listWebhooks(ctx: TransportContext, opts: WebhookOpts = {}): Promise<IDataObject[]> {
	const { itemIndex, policy } = opts;
	return await paginateAll<IDataObject>(ctx, 'webhooks/', undefined, { itemIndex, policy, keyField: 'webhook_key', resource: 'webhooks' });
}

/** `input` is checked by the caller before anything is sent (Webhook › Update's prepare, the trigger). */
export async function updateWebhook(ctx: TransportContext, key: string, input: WebhookInput, opts: WebhookOpts = {}): Promise<IDataObject> {
	const labels = { itemIndex: opts.itemIndex, resource: `Webhook ${key}` };
	const body = { url: input.url, events: input.events };
	const response = await apiRequest(ctx, 'PUT', `webhooks/${encodeURIComponent(key)}/`, { ...labels, body, policy: opts.policy });
	const record = await recordOf(ctx, response, 'PUT', labels);
	if (record !== undefined && keyOf(record) !== '') return record;
	// An answer without the subscription (empty, a message): the spec has no single-webhook read, so the list says.
	const listed = (await listWebhooks(ctx, opts)).find((w) => keyOf(w) === key);
	if (listed) return listed;
	throw unconfirmedError(ctx, response.statusCode, `webhook ${key}`, opts.itemIndex);
}

/** `keyAsListed`: the webhook_key as the list gives it (a number stays a number), at the cost of reading the list. */
export async function deleteWebhook(ctx: TransportContext, key: string, opts: WebhookOpts & { notFoundIsSuccess?: boolean; keyAsListed?: boolean } = {}): Promise<{ deleted: true; webhook_key: string | number; alreadyGone?: true }> {
	let shownKey: string | number = key;
	if (opts.keyAsListed) {
		const listed = (await listWebhooks(ctx, opts)).find((w) => keyOf(w) === key)?.webhook_key;
		if (typeof listed === 'number') shownKey = listed;
	}
	const labels = { itemIndex: opts.itemIndex, resource: `Webhook ${key}` };
	const response = await apiRequest(ctx, 'DELETE', `webhooks/${encodeURIComponent(key)}/`, { ...labels, policy: opts.policy, allowStatus: [404] });
	if (response.statusCode === 404) {
		// A 404 after a failed first attempt means that attempt deleted it.
		if (opts.notFoundIsSuccess || response.afterAmbiguousFailure) return { deleted: true, webhook_key: shownKey, alreadyGone: true };
		throw await responseError(ctx, response, 'DELETE', labels);
	}
	// A 2xx that is neither empty nor a JSON object (a proxy's login page) did not delete anything.
	await recordOf(ctx, response, 'DELETE', labels);
	return { deleted: true, webhook_key: shownKey };
}
