/**
 * Poll harness: runs the Appointments Polling Trigger as n8n 2.41 does, with n8n-core's real PollContext and
 * PollTriggerExecutor (the code n8n's ActiveWorkflowTriggers runs on every poll time), and n8n's rule for static
 * data: it is written to the database when a poll emits items, and after activation; a poll that returns null or
 * fails changes only the in-memory copy, which a restart loses.
 *
 *   const h = startPollingHarness({ credentials, parameters: { events: [...], options: {...} }, timezone?, nodeType? });
 *   await h.activate()      n8n's activation poll (testingTrigger: its error is thrown), then static data saved
 *   await h.poll()          one scheduled poll -> { items, error }: emitted items are returned, a failure is what
 *                           n8n records as the trigger's error execution
 *   await h.pollSaved()     one poll of a workflow built afresh from the saved one, as n8n's durable scheduler runs
 *                           each poll (its static data: the saved copy; what it emits is saved)
 *   await h.restart()       stop, then start from the saved workflow (saved static data) and activate ('init')
 *   await h.manual()        "Fetch test event": a manual poll on a copy of the saved static data (never saved)
 *   h.saved()               the static data as saved in the database (a copy)
 *   h.savedBytes()          its JSON size
 */
import { randomUUID } from 'node:crypto';

import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IPollFunctions,
	IWorkflowExecuteAdditionalData,
	Workflow as WorkflowType,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { AppointmentsPollingTrigger } from '../../nodes/Appointments/AppointmentsPollingTrigger.node';
import { testAdditionalData, TestNodeTypes } from './n8n';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const workflowLib = require('n8n-workflow') as typeof import('n8n-workflow');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const core = require('n8n-core') as typeof import('n8n-core');
const fromCore = (id: string) =>
	require(require.resolve(id, { paths: [require.resolve('n8n-core')] }));
const { Container } = fromCore('@n8n/di') as {
	Container: { get<T>(token: new (...args: never[]) => T): T };
};

export interface PollResult {
	items?: INodeExecutionData[];
	error?: Error;
}

export interface PollingHarness {
	activate(activation?: WorkflowActivateMode): Promise<PollResult>;
	poll(): Promise<PollResult>;
	pollSaved(): Promise<PollResult>;
	restart(): Promise<PollResult>;
	manual(): Promise<INodeExecutionData[] | undefined>;
	setParameters(parameters: IDataObject): void;
	saved(): IDataObject;
	savedBytes(): number;
}

export interface PollingHarnessOptions {
	credentials: { baseUrl: string; accessToken: string; accountTimeZone?: string };
	parameters: IDataObject;
	timezone?: string;
	/** Another polling node type in the same place (benchmarks: a baseline that only reads). */
	nodeType?: INodeType;
}

const NODE_NAME = 'Appointments Polling Trigger';

/** The saved workflow, the activated one (built from it, living until the next restart, as in n8n) and its polls. */
class PolledWorkflow {
	private readonly nodeTypes: TestNodeTypes;
	private readonly workflowId = `wf-${randomUUID()}`;
	private readonly additionalData: IWorkflowExecuteAdditionalData;
	parameters: IDataObject;
	savedStaticData: IDataObject = {};
	workflow: WorkflowType;

	constructor(private readonly options: PollingHarnessOptions) {
		this.nodeTypes = new TestNodeTypes({
			'test.appointmentsPollingTrigger': options.nodeType ?? new AppointmentsPollingTrigger(),
		});
		this.parameters = { pollTimes: { item: [{ mode: 'everyMinute' }] }, ...options.parameters };
		this.additionalData = testAdditionalData({
			credentials: options.credentials,
			publicBase: 'http://127.0.0.1:5678',
			where: 'in the poll harness',
		});
		this.workflow = this.build();
	}

	build(): WorkflowType {
		const node: INode = {
			id: 'poll-node',
			name: NODE_NAME,
			type: 'test.appointmentsPollingTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: this.parameters as INode['parameters'],
			credentials: { appointmentsApi: { id: 'cred-1', name: 'Appointments account' } },
		};
		return new workflowLib.Workflow({
			id: this.workflowId,
			name: 'Polling test workflow',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: this.nodeTypes,
			staticData: structuredClone(this.savedStaticData),
			settings: { timezone: this.options.timezone ?? 'America/Santiago', executionOrder: 'v1' },
		});
	}

	save(workflow = this.workflow): void {
		// WorkflowStaticDataService.saveStaticData: only when the proxy saw a change.
		const data = workflow.staticData as IDataObject & { __dataChanged?: boolean };
		if (data.__dataChanged === true) {
			this.savedStaticData = JSON.parse(JSON.stringify(data)) as IDataObject;
			data.__dataChanged = false;
		}
	}

	async run(
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
		testing: boolean,
		workflow = this.workflow,
	): Promise<PollResult> {
		const result: PollResult = {};
		const target = workflow.getNode(NODE_NAME)!;
		const ctx: IPollFunctions = new core.PollContext(
			workflow,
			target,
			this.additionalData,
			mode,
			activation,
			(data) => {
				this.save(workflow); // as n8n's __emit: static data saved, then the workflow runs with the items
				result.items = data[0];
			},
			(error) => {
				result.error = error;
			},
		);
		const executor = Container.get(core.PollTriggerExecutor);
		const execute = executor.create(workflow, target, ctx, () => true);
		try {
			await execute(testing);
		} catch (error) {
			result.error = error as Error;
		}
		return result;
	}
}

export function startPollingHarness(options: PollingHarnessOptions): PollingHarness {
	const w = new PolledWorkflow(options);
	return {
		async activate(activation = 'activate') {
			const result = await w.run('trigger', activation, true);
			if (result.error) throw result.error;
			w.save(); // addTriggers is followed by saveStaticData
			return result;
		},
		async poll() {
			return await w.run('trigger', 'activate', false);
		},
		async pollSaved() {
			return await w.run('trigger', 'activate', false, w.build());
		},
		async restart() {
			w.workflow = w.build();
			return await this.activate('init');
		},
		async manual() {
			const saved = w.workflow;
			w.workflow = w.build();
			try {
				const result = await w.run('manual', 'manual', true);
				if (result.error) throw result.error;
				return result.items;
			} finally {
				w.workflow = saved;
			}
		},
		setParameters(next) {
			w.parameters = { pollTimes: w.parameters.pollTimes, ...next };
			const current = w.workflow.getNode(NODE_NAME)!;
			current.parameters = w.parameters as INode['parameters'];
		},
		saved: () => structuredClone(w.savedStaticData),
		savedBytes: () => JSON.stringify(w.savedStaticData).length,
	};
}
