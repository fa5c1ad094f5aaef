/**
 * The trigger harness's saved workflow and its webhook life as n8n 2.41 runs it (test/helpers/trigger.ts is the
 * entry point and describes the whole harness):
 *
 *   new TriggerWorkflow(nodeType, options, publicBase)
 *   activate(activation) / deactivate()   ActiveWorkflowManager.add and clearWebhooks (static data saved)
 *   startTest() / stopTest()              TestWebhooks (a copy of the saved static data, never saved)
 *   production, test                      what each mode serves: { workflow, data }, undefined when not served
 *   build(staticData), webhookPath(), additionalData(extra)   for the receiver (triggerReceiver.ts)
 */
import { randomUUID } from 'node:crypto';

import type {
	IDataObject,
	INode,
	INodeType,
	IWebhookData,
	IWebhookDescription,
	IWorkflowExecuteAdditionalData,
	Workflow as WorkflowType,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { testAdditionalData, TestNodeTypes } from './n8n';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const workflowLib = require('n8n-workflow') as typeof import('n8n-workflow');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const core = require('n8n-core') as typeof import('n8n-core');

/** What the saved workflow is made of (a part of TriggerHarnessOptions). */
export interface SavedTriggerOptions {
	credentials: { baseUrl: string; accessToken: string };
	parameters: IDataObject;
	nodeName?: string;
	nodeId?: string;
	webhookId?: string;
	workflowId?: string;
}

export interface Served {
	workflow: WorkflowType;
	data: IWebhookData;
}

interface SavedWorkflow {
	id: string;
	node: INode;
	staticData: IDataObject;
}

export function copy<T>(value: T): T {
	return JSON.parse(JSON.stringify(value ?? {})) as T;
}

export class TriggerWorkflow {
	saved: SavedWorkflow;
	production: Served | undefined;
	test: Served | undefined;
	readonly webhookDescription: IWebhookDescription;
	private readonly nodeTypes: TestNodeTypes;

	constructor(
		readonly nodeType: INodeType,
		private readonly options: SavedTriggerOptions,
		private readonly publicBase: string,
	) {
		const typeName = `test.${nodeType.description.name}`;
		this.nodeTypes = new TestNodeTypes({ [typeName]: nodeType });
		this.webhookDescription = nodeType.description.webhooks![0];
		this.saved = {
			id: options.workflowId ?? `wf-${randomUUID().slice(0, 8)}`,
			staticData: {},
			node: {
				id: options.nodeId ?? randomUUID(),
				name: options.nodeName ?? 'Appointments Trigger',
				type: typeName,
				typeVersion: 1,
				position: [0, 0],
				webhookId: options.webhookId ?? randomUUID(),
				parameters: copy(options.parameters) as INode['parameters'],
				credentials: { appointmentsApi: { id: 'cred-1', name: 'Appointments account' } },
			},
		};
	}

	additionalData(
		extra: Partial<IWorkflowExecuteAdditionalData> = {},
	): IWorkflowExecuteAdditionalData {
		return testAdditionalData({
			credentials: this.options.credentials,
			publicBase: this.publicBase,
			where: 'by the trigger harness',
			extra,
		});
	}

	build(staticData: IDataObject): WorkflowType {
		return new workflowLib.Workflow({
			id: this.saved.id,
			name: 'Trigger test workflow',
			nodes: [copy(this.saved.node)],
			connections: {},
			active: true,
			nodeTypes: this.nodeTypes,
			staticData,
			settings: { timezone: 'America/Santiago', executionOrder: 'v1' },
		});
	}

	webhookPath(): string {
		return workflowLib.NodeHelpers.getNodeWebhookPath(
			this.saved.id,
			this.saved.node,
			String(this.webhookDescription.path),
			false,
		);
	}

	private webhookData(workflow: WorkflowType, isTest: boolean): IWebhookData {
		return {
			httpMethod: 'POST',
			node: this.saved.node.name,
			path: this.webhookPath(),
			webhookDescription: this.webhookDescription,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: this.additionalData(),
			...(isTest ? { isTest: true } : {}),
		} as IWebhookData;
	}

	private async runHook(
		method: 'checkExists' | 'create' | 'delete',
		{ workflow, data }: Served,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): Promise<boolean | undefined> {
		const node = workflow.getNode(data.node);
		if (!node) return undefined;
		const fn = this.nodeType.webhookMethods?.[data.webhookDescription.name]?.[method];
		if (fn === undefined) return undefined;
		const context = new core.HookContext(
			workflow,
			node,
			data.workflowExecuteAdditionalData,
			mode,
			activation,
			data,
		);
		return await fn.call(context);
	}

	private saveStaticData(workflow: WorkflowType): void {
		const data = workflow.staticData as IDataObject & { __dataChanged?: boolean };
		if (data.__dataChanged === true) {
			this.saved.staticData = copy(data);
			data.__dataChanged = false;
		}
	}

	private served(isTest: boolean): Served {
		const workflow = this.build(copy(this.saved.staticData));
		return { workflow, data: this.webhookData(workflow, isTest) };
	}

	private async clearWebhooks(): Promise<void> {
		const target = this.served(false);
		await this.runHook('delete', target, 'internal', 'update');
		this.saveStaticData(target.workflow);
	}

	async activate(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		const target = this.served(false);
		try {
			const exists = await this.runHook('checkExists', target, 'trigger', activation);
			if (!exists) await this.runHook('create', target, 'trigger', activation);
		} catch (error) {
			try {
				await this.clearWebhooks();
			} catch {
				// n8n logs this and reports the original error
			}
			// eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- the node's own error, passed on as n8n does
			throw error;
		}
		this.saveStaticData(target.workflow);
		this.production = target;
	}

	async deactivate(): Promise<void> {
		this.production = undefined;
		await this.clearWebhooks();
	}

	async startTest(): Promise<void> {
		const target = this.served(true);
		const exists = await this.runHook('checkExists', target, 'manual', 'manual');
		if (!exists) await this.runHook('create', target, 'manual', 'manual');
		this.test = target;
	}

	async stopTest(): Promise<void> {
		const current = this.test;
		this.test = undefined;
		if (current) await this.runHook('delete', current, 'internal', 'update');
	}
}
