import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import * as appointment from './actions/appointment';
import { router } from './actions/router';
import * as webhook from './actions/webhook';

/**
 * Appointments: manage appointments and webhook subscriptions of the scheduling service.
 * Version 1 (a version 2 would follow n8n's VersionedNodeType convention).
 */
export class Appointments implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Appointments',
		name: 'appointments',
		icon: {
			light: 'file:appointments.svg',
			dark: 'file:appointments.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Manage appointments and webhook subscriptions of the scheduling service',
		defaults: { name: 'Appointments' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'appointmentsApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Appointment', value: 'appointment' },
					{ name: 'Webhook', value: 'webhook' },
				],
				default: 'appointment',
			},
			...appointment.description,
			...webhook.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
