/**
 * A tiny node that calls the transport directly, so the transport can be exercised inside n8n-core's real
 * WorkflowExecute independently of the action node. Parameter `call` picks the function; the result of each
 * call becomes one output item per record.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { apiRequest } from '../../nodes/Appointments/transport/http/apiRequest.js';
import {
	createWebhook,
	deleteWebhook,
	listWebhooks,
	updateWebhook,
} from '../../nodes/Appointments/transport/resources/webhookCalls.js';
import {
	getAppointment,
	mutateAppointment,
} from '../../nodes/Appointments/transport/resources/appointmentCalls.js';
import { paginate } from '../../nodes/Appointments/transport/list/paginate.js';
import { type RequestPolicy } from '../../nodes/Appointments/transport/http/credentialInfo.js';

export class TransportTestNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Transport Test',
		name: 'transportTest',
		group: ['transform'],
		version: 1,
		description: 'Calls the Appointments transport',
		defaults: { name: 'Transport Test' },
		inputs: ['main'] as never,
		outputs: ['main'] as never,
		credentials: [{ name: 'appointmentsApi', required: true }],
		properties: [
			{ displayName: 'Call', name: 'call', type: 'string', default: 'paginate' },
			{ displayName: 'Path', name: 'path', type: 'string', default: 'appointments/' },
			{ displayName: 'Method', name: 'method', type: 'string', default: 'GET' },
			{ displayName: 'Key', name: 'key', type: 'string', default: '' },
			{ displayName: 'Limit', name: 'limit', type: 'number', default: 0 },
			{ displayName: 'Max Pages', name: 'maxPages', type: 'number', default: 0 },
			{ displayName: 'Page Concurrency', name: 'pageConcurrency', type: 'number', default: 1 },
			{ displayName: 'Query', name: 'qs', type: 'json', default: '{}' },
			{ displayName: 'Body', name: 'body', type: 'json', default: '' },
			{ displayName: 'Policy', name: 'policy', type: 'json', default: '{}' },
			{
				displayName: 'Not Found Is Success',
				name: 'notFoundIsSuccess',
				type: 'boolean',
				default: false,
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		const items = this.getInputData();
		for (let i = 0; i < items.length; i++) {
			const json = (name: string): IDataObject | undefined => {
				const raw = this.getNodeParameter(name, i, '') as string | IDataObject;
				if (raw === '' || raw === undefined) return undefined;
				return typeof raw === 'string' ? (JSON.parse(raw) as IDataObject) : raw;
			};
			const call = this.getNodeParameter('call', i) as string;
			const path = this.getNodeParameter('path', i) as string;
			const key = this.getNodeParameter('key', i) as string;
			const limit = (this.getNodeParameter('limit', i) as number) || undefined;
			const maxPages = (this.getNodeParameter('maxPages', i) as number) || undefined;
			const pageConcurrency = this.getNodeParameter('pageConcurrency', i) as number;
			const policy = (json('policy') ?? {}) as Partial<RequestPolicy>;
			const body = json('body');
			try {
				let records: IDataObject[] = [];
				if (call === 'paginate') {
					for await (const page of paginate(this, path, json('qs'), {
						limit,
						maxPages,
						itemIndex: i,
						policy,
						pageConcurrency,
					})) {
						records.push(...page);
					}
				} else if (call === 'apiRequest') {
					const method = this.getNodeParameter('method', i) as 'GET';
					const res = await apiRequest(this, method, path, {
						qs: json('qs'),
						body,
						itemIndex: i,
						policy,
					});
					records = [
						{ statusCode: res.statusCode, attempts: res.attempts, body: res.body as IDataObject },
					];
				} else if (call === 'getAppointment') {
					records = [await getAppointment(this, key, { itemIndex: i, policy })];
				} else if (call === 'mutateAppointment') {
					const method = this.getNodeParameter('method', i) as 'PATCH';
					records = [
						await mutateAppointment(this, method, path, key, {
							qs: json('qs'),
							body,
							itemIndex: i,
							policy,
						}),
					];
				} else if (call === 'listWebhooks') {
					records = await listWebhooks(this, { itemIndex: i, policy });
				} else if (call === 'createWebhook') {
					records = [await createWebhook(this, body as never, { itemIndex: i, policy })];
				} else if (call === 'updateWebhook') {
					records = [await updateWebhook(this, key, body as never, { itemIndex: i, policy })];
				} else if (call === 'deleteWebhook') {
					const notFoundIsSuccess = this.getNodeParameter('notFoundIsSuccess', i) as boolean;
					records = [await deleteWebhook(this, key, { itemIndex: i, policy, notFoundIsSuccess })];
				} else {
					throw new Error(`unknown call ${call}`);
				}
				for (const r of records) out.push({ json: r, pairedItem: { item: i } });
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({
						json: {
							error: (error as Error).message,
							description: (error as IDataObject).description as string,
						},
						pairedItem: { item: i },
					});
					continue;
				}
				throw error;
			}
		}
		return [out];
	}
}
