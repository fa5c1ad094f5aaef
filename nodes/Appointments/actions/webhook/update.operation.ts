/** Webhook > Update: PUT /api/v3/webhooks/{key}/ {url, events}, a full replacement of the subscription. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { eventList } from '../../shared/validation.js';
import { validateWebhookUrl, type WebhookInput } from '../../shared/webhookInput.js';
import { updateWebhook } from '../../transport/resources/webhookCalls.js';
import { optionsCollection, webhookFields, webhookKeyField } from '../common.descriptions.js';
import { readWebhookKey } from '../keys.js';
import type { PrepareOperation } from '../types.js';

export const properties: INodeProperties[] = [
	webhookKeyField,
	...webhookFields.map((field) =>
		field.name === 'url'
			? { ...field, hint: 'Replaces the URL and the events of the webhook; only HTTPS is accepted' }
			: field,
	),
	optionsCollection(false),
];

/** URL and Events of Create and Update; eventList gives at least one event, trimmed and without repeats. */
export function readWebhookInput(ctx: IExecuteFunctions, i: number): WebhookInput {
	const node = ctx.getNode();
	const url = validateWebhookUrl(node, ctx.getNodeParameter('url', i, ''), i);
	const events = eventList(
		node,
		ctx.getNodeParameter('events', i, []),
		ctx.getNodeParameter('otherEvents', i, ''),
		i,
	);
	return { url, events };
}

export const prepare: PrepareOperation = function ({ itemIndex, policy }) {
	const key = readWebhookKey(this, itemIndex);
	const input = readWebhookInput(this, itemIndex);
	return async () => await updateWebhook(this, key, input, { itemIndex, policy });
};
