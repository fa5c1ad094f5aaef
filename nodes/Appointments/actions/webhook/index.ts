import { resourceDescription } from '../common.descriptions.js';
import * as create from './create.operation.js';
import * as del from './delete.operation.js';
import * as getAll from './getAll.operation.js';
import * as update from './update.operation.js';

/** In the order their fields are listed. */
export const operations = { getAll, create, update, delete: del };

export const description = resourceDescription(
	'webhook',
	[
		{
			name: 'Create',
			value: 'create',
			description: 'Subscribe a callback URL to events',
			action: 'Create a webhook',
		},
		{
			name: 'Delete',
			value: 'delete',
			description: 'Delete a webhook',
			action: 'Delete a webhook',
		},
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List the webhooks',
			action: 'Get many webhooks',
		},
		{
			name: 'Update',
			value: 'update',
			description: 'Replace the URL and events of a webhook',
			action: 'Update a webhook',
		},
	],
	operations,
);
