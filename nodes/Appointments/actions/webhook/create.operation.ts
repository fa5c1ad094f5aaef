/**
 * Webhook > Create: POST /api/v3/webhooks/ {url, events}. An http:// URL or no event is refused before any
 * request. A create whose answer was lost adopts the stored subscription instead of doubling it (transport), also
 * when n8n's Retry On Fail runs the node again.
 */
import type { INodeProperties } from 'n8n-workflow';

import { createWebhook, type FirstRun } from '../../transport/resources/webhookCalls.js';
import { optionsCollection, webhookFields } from '../common.descriptions.js';
import { rerunMemo } from '../reruns.js';
import type { PrepareOperation } from '../types.js';
import { readWebhookInput } from './update.operation.js';

export const properties: INodeProperties[] = [...webhookFields, optionsCollection(false)];

export const prepare: PrepareOperation = function ({ itemIndex, policy }) {
	const input = readWebhookInput(this, itemIndex);
	const firstRun = rerunMemo<FirstRun>(this, itemIndex);
	return async () => await createWebhook(this, input, { itemIndex, policy, firstRun });
};
