/**
 * Webhook > Create: POST /api/v3/webhooks/ {url, events}. An http:// URL or no event is refused before any
 * request. A create whose answer was lost adopts the stored subscription instead of doubling it (transport), also
 * when n8n's Retry On Fail runs the node again.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { createWebhook } from '../../transport';
import { optionsCollection, webhookFields } from '../common.descriptions';
import type { PrepareOperation } from '../types';
import { readWebhookInput } from './update.operation';

export const properties: INodeProperties[] = [...webhookFields, optionsCollection(false)];

/**
 * The same for every run of this item's create that n8n's Retry On Fail makes: it runs the node again in the same
 * execution with the same run index. Undefined without Retry On Fail, or when n8n does not say which run this is.
 */
function rerunKeyOf(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	const node = ctx.getNode();
	if (node.retryOnFail !== true) return undefined;
	let runIndex: unknown;
	try {
		runIndex = ctx.getWorkflowDataProxy(itemIndex).$runIndex;
	} catch {
		return undefined;
	}
	const executionId = ctx.getExecutionId();
	if (!executionId || typeof runIndex !== 'number') return undefined;
	return JSON.stringify([executionId, node.id ?? node.name, runIndex, itemIndex]);
}

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const input = readWebhookInput(this, i);
	const rerunKey = rerunKeyOf(this, i);
	return async () => await createWebhook(this, input, { itemIndex: i, policy: item.policy, rerunKey });
};
