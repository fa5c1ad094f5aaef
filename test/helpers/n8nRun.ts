/**
 * runNode: a two-node workflow "Input" -> node under test run in n8n-core's real WorkflowExecute, with our
 * credentials helper, giving the node's output, its error and the log lines of the run.
 */
import type { IDataObject, INode, INodeExecutionData, INodeType, IRun } from 'n8n-workflow';

import { core, logCount, logsSince, workflowLib } from './n8nCore';
import {
	defaultNodeType,
	InputNode,
	manualRun,
	testAdditionalData,
	TestNodeTypes,
} from './n8nWorkflow';

export interface RunNodeOptions {
	parameters: IDataObject;
	credentials: { baseUrl: string; accessToken: string; accountTimeZone?: string };
	input?: IDataObject[];
	continueOnFail?: boolean;
	timezone?: string;
	nodeType?: INodeType;
	nodeTypeVersion?: number;
	/** The node's settings (Retry On Fail and its tries). */
	settings?: Pick<INode, 'retryOnFail' | 'maxTries' | 'waitBetweenTries'>;
}

export interface RunNodeResult {
	items: INodeExecutionData[][];
	error?: Error;
	logs: string[];
	run: IRun;
}

let executionCounter = 0;

/**
 * Max Attempts and Max Retry Wait are settings of versions 1-3 (version 4 has n8n's Retry On Fail instead): a test
 * that sets them, without naming a version, means the newest version that has them.
 */
function setsRetryKnobs(parameters: IDataObject): boolean {
	return ['advanced', 'options'].some((group) => {
		const settings = parameters[group];
		return (
			typeof settings === 'object' &&
			settings !== null &&
			('maxAttempts' in settings || 'maxRetryWaitSeconds' in settings)
		);
	});
}

export async function runNode(options: RunNodeOptions): Promise<RunNodeResult> {
	const nodeType = options.nodeType ?? defaultNodeType();
	const typeName = `test.${nodeType.description.name}`;
	// Like a node newly added in the editor: a versioned node's defaultVersion, else its highest version.
	const declared = (nodeType.description as { version?: number | number[] }).version;
	const version =
		options.nodeTypeVersion ??
		(setsRetryKnobs(options.parameters) ? 3 : undefined) ??
		nodeType.description.defaultVersion ??
		(Array.isArray(declared) ? Math.max(...declared) : (declared as number));

	const nodes: INode[] = [
		{
			id: 'input',
			name: 'Input',
			type: 'test.testInput',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'under-test',
			name: 'Node',
			type: typeName,
			typeVersion: version,
			position: [200, 0],
			parameters: options.parameters as INode['parameters'],
			credentials: { appointmentsApi: { id: 'cred-1', name: 'Appointments account' } },
			continueOnFail: options.continueOnFail ?? false,
			...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
			...options.settings,
		},
	];
	const nodeTypes = new TestNodeTypes({
		'test.testInput': new InputNode(options.input),
		[typeName]: nodeType,
	});
	const workflow = new workflowLib.Workflow({
		id: 'wf-test',
		name: 'Test workflow',
		nodes,
		connections: { Input: { main: [[{ node: 'Node', type: 'main' as never, index: 0 }]] } },
		active: false,
		nodeTypes,
		staticData: {},
		settings: { timezone: options.timezone ?? 'America/Santiago', executionOrder: 'v1' },
	});

	const executionId = String(++executionCounter);

	const additionalData = testAdditionalData({
		credentials: options.credentials,
		publicBase: 'http://127.0.0.1:5678',
		instanceBase: 'http://127.0.0.1',
		where: 'in tests',
		extra: manualRun(executionId, { id: 'wf-test', name: 'Test workflow', nodes }),
	});

	const logStart = logCount();
	const workflowExecute = new core.WorkflowExecute(additionalData, 'manual');
	const run = await workflowExecute.run({ workflow, startNode: workflow.getNode('Input')! });

	const taskData = run.data.resultData.runData.Node?.[0];
	const items = (taskData?.data?.main ?? []).map((output) => output ?? []);
	const error = (taskData?.error ?? run.data.resultData.error) as Error | undefined;
	return { items, error, logs: logsSince(logStart), run };
}
