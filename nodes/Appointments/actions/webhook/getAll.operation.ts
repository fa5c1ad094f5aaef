/** Webhook > Get Many: GET /api/v3/webhooks/ (a bare array or a paginated object), one item per subscription. */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { paginateAll } from '../../transport/list/paginate.js';
import { optionsCollection, readLimit, returnAllOrLimit } from '../common.descriptions.js';
import type { PrepareOperation } from '../types.js';

export const properties: INodeProperties[] = [
	...returnAllOrLimit('webhooks'),
	optionsCollection(false),
];

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const limit = readLimit(this, i);
	const options = {
		limit,
		itemIndex: i,
		policy: item.policy,
		keyField: 'webhook_key',
		resource: 'webhooks',
	};
	return async () => await paginateAll<IDataObject>(this, 'webhooks/', undefined, options);
};
