/**
 * Webhook > Delete: DELETE /api/v3/webhooks/{key}/ -> { deleted: true, webhook_key }. A 404 is an error unless an
 * earlier attempt of this same delete may have gone through (then the subscription is gone thanks to it).
 */
import type { INodeProperties } from 'n8n-workflow';

import { deleteWebhook } from '../../transport/resources/webhookCalls.js';
import { optionsCollection, webhookKeyField } from '../common.descriptions.js';
import { readWebhookKey } from '../keys.js';
import type { PrepareOperation } from '../types.js';

export const properties: INodeProperties[] = [webhookKeyField, optionsCollection(false)];

export const prepare: PrepareOperation = function ({ itemIndex, policy }) {
	const key = readWebhookKey(this, itemIndex);
	return async () => {
		const result = await deleteWebhook(this, key, { itemIndex, policy, keyAsListed: true });
		return { deleted: result.deleted, webhook_key: result.webhook_key };
	};
};
