/** Webhook > Get Many: GET /api/v3/webhooks/ (a bare array or a paginated object), one item per subscription. */
import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import { inputError } from '../../shared';
import { paginate } from '../../transport';
import { optionsCollection, returnAllOrLimit } from '../common.descriptions';
import type { PrepareOperation } from '../types';

const properties: INodeProperties[] = [
	...returnAllOrLimit('subscriptions'),
	optionsCollection(false),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['getAll'] } },
	properties,
);

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const returnAll = this.getNodeParameter('returnAll', i, false) as boolean;
	let limit: number | undefined;
	if (!returnAll) {
		const given = this.getNodeParameter('limit', i, 50) as unknown;
		const raw = typeof given === 'string' && given.trim() !== '' ? Number(given) : given;
		if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1) {
			throw inputError(this.getNode(), 'Limit', i, 'a whole number of at least 1', given);
		}
		limit = raw;
	}
	return async () => {
		const out: IDataObject[] = [];
		for await (const record of paginate<IDataObject>(this, 'webhooks/', undefined, {
			limit,
			itemIndex: i,
			policy: item.policy,
			keyField: 'webhook_key',
			resource: 'webhooks',
		})) {
			out.push(record);
		}
		return out;
	};
};
