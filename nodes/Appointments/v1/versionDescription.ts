import type { INodeProperties } from 'n8n-workflow';

import * as appointment from '../actions/appointment/index.js';
import * as webhook from '../actions/webhook/index.js';

export const resourceProperty: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: [
		{ name: 'Appointment', value: 'appointment' },
		{ name: 'Webhook', value: 'webhook' },
	],
	default: 'appointment',
};

/** Keys typed or given by expression; Get returns the full record. */
export const versionDescription: INodeProperties[] = [
	resourceProperty,
	...appointment.description,
	...webhook.description,
];
