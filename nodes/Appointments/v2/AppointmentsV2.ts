import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeBaseDescription,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { router } from '../actions/router';
import { searchAppointments, searchWebhooks } from '../listSearch';
import { hints, versionDescription } from './versionDescription';

/** Version 2: appointments and subscriptions picked from lists (resource locators); Get has Simplify. */
export class AppointmentsV2 implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = {
			...baseDescription,
			version: 2,
			defaults: { name: 'Appointments' },
			usableAsTool: true,
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'appointmentsApi', required: true }],
			properties: versionDescription,
			hints,
		};
	}

	methods = { listSearch: { searchAppointments, searchWebhooks } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
