/**
 * Webhook > Create: POST /api/v3/webhooks/ {url, events}. An http:// URL or no event is refused before any
 * request. A create whose answer was lost adopts the stored subscription instead of doubling it (transport), also
 * when n8n's Retry On Fail runs the node again.
 */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { eventList, validateWebhookUrl, type WebhookInput } from '../../shared';
import { createWebhook, type FirstRun } from '../../transport';
import { optionsCollection, webhookFields } from '../common.descriptions';
import { rerunMemo } from '../reruns';
import type { PrepareOperation } from '../types';

const properties: INodeProperties[] = [...webhookFields, optionsCollection(false)];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['create'] } },
	properties,
);

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const url = validateWebhookUrl(this.getNode(), this.getNodeParameter('url', i, ''), i);
	const events = eventList(
		this.getNode(),
		this.getNodeParameter('events', i, []),
		this.getNodeParameter('otherEvents', i, ''),
		i,
	);
	// eventList gives at least one event, trimmed and without repeats: the input is checked.
	const input: WebhookInput = { url, events };
	const firstRun = rerunMemo<FirstRun>(this, i);
	return async () => await createWebhook(this, input, { itemIndex: i, policy: item.policy, firstRun });
};
