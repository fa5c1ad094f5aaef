/** Webhook > Get Many: GET /api/v3/webhooks/ (a bare array or a paginated object), one item per subscription. */
import type { INodeProperties } from 'n8n-workflow';

import { listWebhooks } from '../../transport/resources/webhookCalls.js';
import { optionsCollection, readLimit, returnAllOrLimit } from '../common.descriptions.js';
import type { PrepareOperation } from '../types.js';

export const properties: INodeProperties[] = [
	...returnAllOrLimit('webhooks'),
	optionsCollection(false),
];

export const prepare: PrepareOperation = function ({ itemIndex, policy }) {
	const limit = readLimit(this, itemIndex);
	return async () => await listWebhooks(this, { limit, itemIndex, policy });
};
