/** Webhook > Update: PUT /api/v3/webhooks/{key}/ {url, events}, a full replacement of the subscription. */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { eventList, validateWebhookUrl, type WebhookInput } from '../../shared';
import { updateWebhook } from '../../transport';
import { optionsCollection, webhookFields, webhookKeyField, webhookKeyOf } from '../common.descriptions';
import type { PrepareOperation } from '../types';

const properties: INodeProperties[] = [
	webhookKeyField,
	...webhookFields.map((field) =>
		field.name === 'url'
			? {
					...field,
					hint: 'Replaces the URL and the events of the webhook; only HTTPS is accepted',
				}
			: field,
	),
	optionsCollection(false),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['update'] } },
	properties,
);

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const node = this.getNode();
	const key = webhookKeyOf(this, i);
	const url = validateWebhookUrl(this.getNode(), this.getNodeParameter('url', i, ''), i);
	const events = eventList(
		node,
		this.getNodeParameter('events', i, []),
		this.getNodeParameter('otherEvents', i, ''),
		i,
	);
	// eventList gives at least one event, trimmed and without repeats: the input is checked.
	const input: WebhookInput = { url, events };
	return async () =>
		await updateWebhook(this, key, input, {
			itemIndex: i,
			policy: item.policy,
		});
};
