/**
 * Webhook > Delete: DELETE /api/v3/webhooks/{key}/ -> { deleted: true, webhook_key }. A 404 is an error unless an
 * earlier attempt of this same delete may have gone through (then the subscription is gone thanks to it).
 */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { deleteWebhook } from '../../transport';
import { optionsCollection, webhookKeyField, webhookKeyOf } from '../common.descriptions';
import type { PrepareOperation } from '../types';

const properties: INodeProperties[] = [webhookKeyField, optionsCollection(false)];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['delete'] } },
	properties,
);

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const key = webhookKeyOf(this, i);
	return async () => {
		const result = await deleteWebhook(this, key, {
			itemIndex: i,
			policy: item.policy,
			keyAsListed: true,
		});
		return { deleted: result.deleted, webhook_key: result.webhook_key };
	};
};
