/**
 * Runs a whole example workflow (examples/*.json) in n8n-core's real WorkflowExecute: our Appointments nodes
 * against the sandbox, n8n's own expression engine, Execute Once and `$('Node')` references as n8n runs them.
 * n8n-nodes-base is not installed for the in-process tests (the e2e suite runs the examples in a real n8n), so
 * two of its nodes have stand-ins:
 *   - the start trigger (Manual or Schedule Trigger): one empty item, as "Execute workflow" gives;
 *   - Send Email: records the email as the node would send it (from, to, subject, text: its parameters
 *     resolved per item) and outputs it, so a test reads the emails the workflow would send.
 * Sticky notes are left out; any other node type fails the run, so a test names what it covers.
 */
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IExecuteFunctions,
} from 'n8n-workflow';

import { TestNodeTypes, testAdditionalData } from './n8n';
import { core, workflowLib } from './n8nCore';
import { manualRun } from './n8nWorkflow';

export interface ExampleJson {
	id: string;
	name: string;
	nodes: Array<INode & { typeVersion: number }>;
	connections: IDataObject;
}

export interface SentEmail {
	fromEmail: string;
	toEmail: string;
	subject: string;
	text: string;
}

const TRIGGERS = ['n8n-nodes-base.manualTrigger', 'n8n-nodes-base.scheduleTrigger'];

class StartStandIn implements INodeType {
	description = {
		displayName: 'Start',
		name: 'start',
		group: ['trigger'],
		version: [1, 1.1, 1.2, 1.3],
		description: 'One empty item',
		defaults: { name: 'Start' },
		inputs: [],
		outputs: ['main'],
		properties: [],
	} as unknown as INodeType['description'];

	async execute(): Promise<INodeExecutionData[][]> {
		return [[{ json: {} }]];
	}
}

const emailField = (name: string) => ({ displayName: name, name, type: 'string', default: '' });

class EmailStandIn implements INodeType {
	description = {
		displayName: 'Send Email',
		name: 'emailSend',
		group: ['output'],
		version: [2, 2.1],
		description: 'Records the email',
		defaults: { name: 'Send Email' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [
			emailField('fromEmail'),
			emailField('toEmail'),
			emailField('subject'),
			{
				displayName: 'Email Format',
				name: 'emailFormat',
				type: 'options',
				options: ['text', 'html', 'both'].map((v) => ({ name: v, value: v })),
				default: 'html',
			},
			emailField('text'),
			emailField('html'),
			{ displayName: 'Options', name: 'options', type: 'json', default: {} },
		],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((_, i) => {
				const json: IDataObject = {};
				for (const f of ['fromEmail', 'toEmail', 'subject', 'text'])
					json[f] = String(this.getNodeParameter(f, i));
				return { json, pairedItem: { item: i } };
			}),
		];
	}
}

export interface ExampleRun {
	/** The JSON of every item a node output (all outputs), by node name. */
	output(nodeName: string): IDataObject[];
	/** The emails the Send Email nodes would have sent, in the order they ran. */
	emails: SentEmail[];
	error?: Error;
}

export async function runExample(
	example: ExampleJson,
	options: { credentials: { baseUrl: string; accessToken: string }; timezone: string },
): Promise<ExampleRun> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { Appointments } = require('../../nodes/Appointments/Appointments.node') as {
		Appointments: new () => INodeType;
	};
	const nodes = structuredClone(example.nodes).filter(
		(n) => n.type !== 'n8n-nodes-base.stickyNote',
	);
	const types: Record<string, INodeType> = {
		'n8n-nodes-appointments.appointments': new Appointments(),
		'n8n-nodes-base.emailSend': new EmailStandIn(),
	};
	for (const t of TRIGGERS) types[t] = new StartStandIn();
	for (const n of nodes) {
		if (!types[n.type])
			throw new Error(`${example.name}: node "${n.name}" (${n.type}) cannot run in-process`);
	}
	const start = nodes.find((n) => TRIGGERS.includes(n.type));
	if (!start) throw new Error(`${example.name} has no Manual or Schedule Trigger`);
	const settings = { timezone: options.timezone, executionOrder: 'v1' as const };
	const workflow = new workflowLib.Workflow({
		id: example.id,
		name: example.name,
		nodes,
		connections: example.connections as never,
		active: false,
		nodeTypes: new TestNodeTypes(types),
		staticData: {},
		settings,
	});
	const additionalData = testAdditionalData({
		credentials: options.credentials,
		publicBase: 'http://127.0.0.1:5678',
		where: 'in the examples test',
		extra: manualRun(`example-${example.id}`, { id: example.id, name: example.name, nodes }),
	});
	const run = await new core.WorkflowExecute(additionalData, 'manual').run({
		workflow,
		startNode: start,
	});
	const runData = run.data.resultData.runData;
	const output = (name: string): IDataObject[] =>
		(runData[name] ?? []).flatMap((task) =>
			(task.data?.main ?? []).flatMap((items) => (items ?? []).map((i) => i.json)),
		);
	const emailNodes = nodes.filter((n) => n.type === 'n8n-nodes-base.emailSend').map((n) => n.name);
	const ran = Object.keys(runData).filter((name) => emailNodes.includes(name));
	const emails = ran
		.sort((a, b) => (runData[a][0].startTime ?? 0) - (runData[b][0].startTime ?? 0))
		.flatMap((name) => output(name) as unknown as SentEmail[]);
	const error = (run.data.resultData.error ??
		Object.values(runData)
			.flatMap((tasks) => tasks.map((t) => t.error))
			.find(Boolean)) as Error | undefined;
	return { output, emails, error };
}
