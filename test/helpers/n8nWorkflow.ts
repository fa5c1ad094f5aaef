/**
 * What a test workflow is made of: InputNode (emits the given items, the start of every test workflow), a
 * hand-written INodeTypes, the Appointments node's default type, and the IWorkflowExecuteAdditionalData n8n gives
 * a node's contexts.
 */
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { core, workflowLib } from './n8nCore';
import { TestCredentialsHelper } from './n8nCredentials';

/** Emits the given items (or one empty item): the start of every test workflow. */
export class InputNode implements INodeType {
	description = {
		displayName: 'Input',
		name: 'testInput',
		group: ['input'],
		version: 1,
		description: 'Test input',
		defaults: { name: 'Input' },
		inputs: [],
		outputs: ['main'],
		properties: [],
	} as unknown as INodeType['description'];

	/** Its own items, so that executions running at the same time each start from theirs (n8n calls
	 * `execute` with its own `this`: the items are bound here). */
	execute: () => Promise<INodeExecutionData[][]>;

	constructor(items: IDataObject[] = [{}]) {
		this.execute = async () => [
			items.map((json, index) => ({ json, pairedItem: { item: index } })),
		];
	}
}

export class TestNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType>) {}
	getByName(name: string): INodeType {
		const type = this.types[name];
		if (!type) throw new Error(`Unknown node type ${name}`);
		return type;
	}
	getByNameAndVersion(name: string, version?: number): INodeType {
		return workflowLib.NodeHelpers.getVersionedNodeType(this.getByName(name), version);
	}
	getKnownTypes(): IDataObject {
		return {};
	}
}

/**
 * The IWorkflowExecuteAdditionalData n8n gives a node's contexts, for tests: our credentials helper, n8n's URLs
 * under `publicBase` (rest API and instance URL under `instanceBase`, default `publicBase`), no sub-workflows and
 * no task runners (`where` ends their error messages), and `extra` on top.
 */
export function testAdditionalData(options: {
	credentials: { baseUrl: string; accessToken: string; accountTimeZone?: string };
	publicBase: string;
	instanceBase?: string;
	where: string;
	extra?: Partial<IWorkflowExecuteAdditionalData> | IDataObject;
}): IWorkflowExecuteAdditionalData {
	const { publicBase, where } = options;
	const instanceBase = options.instanceBase ?? publicBase;
	return {
		credentialsHelper: new TestCredentialsHelper({ ...options.credentials }),
		executeWorkflow: async () => {
			throw new Error(`sub-workflows are not supported ${where}`);
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${instanceBase}/rest`,
		instanceBaseUrl: `${instanceBase}/`,
		formBaseUrl: `${publicBase}/form`,
		formWaitingBaseUrl: `${publicBase}/form-waiting`,
		formTestBaseUrl: `${publicBase}/form-test`,
		webhookBaseUrl: `${publicBase}/webhook`,
		webhookWaitingBaseUrl: `${publicBase}/webhook-waiting`,
		webhookTestBaseUrl: `${publicBase}/webhook-test`,
		mcpBaseUrl: `${publicBase}/mcp`,
		mcpTestBaseUrl: `${publicBase}/mcp-test`,
		variables: {},
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error(`task runners are not available ${where}`);
		},
		userId: 'user-1',
		...options.extra,
	} as unknown as IWorkflowExecuteAdditionalData;
}

/** What a manual run adds to testAdditionalData's `extra`: n8n's lifecycle hooks for the workflow and the run's id. */
export function manualRun(
	executionId: string,
	workflow: { id: string; name: string; nodes: INode[] },
): Pick<IWorkflowExecuteAdditionalData, 'hooks' | 'executionId'> {
	const hooks = new core.ExecutionLifecycleHooks('manual', executionId, {
		...workflow,
		active: false,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		connections: {},
		activeVersionId: null,
	} as never);
	return { hooks, executionId };
}

export function defaultNodeType(): INodeType {
	// Loaded lazily so the harness works before the action node exists.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const mod = require('../../nodes/Appointments/Appointments.node') as {
		Appointments: new () => INodeType;
	};
	return new mod.Appointments();
}
