import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
	type INodeType,
	type INodeTypeBaseDescription,
	type INodeTypeDescription,
	type NodeHint,
} from 'n8n-workflow';

import { router } from './router.js';

/** One version of the Appointments node: its own fields (vN/), the operations and execute() all versions share. */
export class AppointmentsVersion implements INodeType {
	description: INodeTypeDescription;
	methods?: INodeType['methods'];

	constructor(
		base: INodeTypeBaseDescription,
		version: number,
		properties: INodeProperties[],
		extra?: { hints: NodeHint[]; listSearch: NonNullable<INodeType['methods']>['listSearch'] },
	) {
		this.description = {
			...base,
			version,
			defaults: { name: 'Appointments' },
			usableAsTool: true,
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'appointmentsApi', required: true }],
			properties,
			...(extra && { hints: extra.hints }),
		};
		if (extra) this.methods = { listSearch: extra.listSearch };
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
