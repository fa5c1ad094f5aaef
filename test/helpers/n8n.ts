/**
 * Runs our nodes inside n8n-core's real WorkflowExecute (no mocks of n8n's execution path): a two-node workflow
 * "Input" -> node under test, a hand-written INodeTypes, a credentials helper that returns the given credential
 * data and applies the credential type's `authenticate` the way n8n does (generic: every header/qs value resolved
 * as an expression with `$credentials`), and a capturing logger behind n8n's LoggerProxy.
 *
 *   runNode({ parameters, credentials: {baseUrl, accessToken}, input?, continueOnFail?, timezone?, nodeType?,
 *             nodeTypeVersion? }) -> Promise<{ items: INodeExecutionData[][]; error?: Error; logs: string[]; run: IRun }>
 *   capturedLogs(): string[]    every line n8n's LoggerProxy received since the process started (all runs)
 *   also shared with the trigger harness (test/helpers/trigger.ts): TestCredentialsHelper, applyAuthentication,
 *   TestNodeTypes, testAdditionalData({ credentials, publicBase, instanceBase?, where, extra? })
 *
 * `N8N_USER_FOLDER` is pointed at a temp dir before n8n-core is loaded (n8n-core reads it at import time).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = mkdtempSync(join(tmpdir(), 'n8n-appointments-test-'));
}

import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRun,
	IWorkflowExecuteAdditionalData,
	Workflow as WorkflowType,
} from 'n8n-workflow';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const workflowLib = require('n8n-workflow') as typeof import('n8n-workflow');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const core = require('n8n-core') as typeof import('n8n-core');

import { AppointmentsApi } from '../../credentials/AppointmentsApi.credentials';

const logs: string[] = [];

function captureLine(level: string, message: string, metadata?: unknown): void {
	let meta = '';
	if (metadata !== undefined) {
		try {
			meta = ' ' + JSON.stringify(metadata, (_k, v) => (v instanceof Error ? { ...v, message: v.message, stack: v.stack } : v));
		} catch {
			meta = ' ' + String(metadata);
		}
	}
	logs.push(`[${level}] ${message}${meta}`);
}

workflowLib.LoggerProxy.init({
	error: (m: string, meta?: unknown) => captureLine('error', m, meta),
	warn: (m: string, meta?: unknown) => captureLine('warn', m, meta),
	info: (m: string, meta?: unknown) => captureLine('info', m, meta),
	debug: (m: string, meta?: unknown) => captureLine('debug', m, meta),
} as never);

// n8n-core's execution contexts log through the DI container's Logger (ctx.logger), not LoggerProxy: capture it too.
{
	const fromCore = (id: string) => require(require.resolve(id, { paths: [require.resolve('n8n-core')] }));
	const { Container } = fromCore('@n8n/di') as { Container: { set: (token: unknown, value: unknown) => void } };
	const { Logger } = fromCore('@n8n/backend-common') as { Logger: unknown };
	const capturing: Record<string, unknown> = {
		error: (m: string, meta?: unknown) => captureLine('error', m, meta),
		warn: (m: string, meta?: unknown) => captureLine('warn', m, meta),
		info: (m: string, meta?: unknown) => captureLine('info', m, meta),
		debug: (m: string, meta?: unknown) => captureLine('debug', m, meta),
	};
	capturing.scoped = () => capturing;
	Container.set(Logger, capturing);
}

export function capturedLogs(): string[] {
	return [...logs];
}

const credentialTypes: Record<string, ICredentialType> = { appointmentsApi: new AppointmentsApi() };

/** Applies a credential type's `authenticate` as n8n's CredentialsHelper does. */
export async function applyAuthentication(
	credentials: ICredentialDataDecryptedObject,
	typeName: string,
	requestOptions: IHttpRequestOptions,
	workflow?: WorkflowType,
	node?: INode,
): Promise<IHttpRequestOptions> {
	const type = credentialTypes[typeName];
	if (!type) throw new Error(`Unknown credential type ${typeName}`);
	const authenticate = type.authenticate;
	if (!authenticate) return requestOptions;
	if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
	if (authenticate.type !== 'generic') throw new Error(`Unsupported authenticate type ${String(authenticate.type)}`);
	const resolve = (value: unknown): unknown => {
		if (typeof value !== 'string' || !value.startsWith('=')) return value;
		if (!workflow || !node) throw new Error('Cannot resolve credential expression without workflow and node');
		return workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials } as never, undefined, '');
	};
	const props = authenticate.properties as Record<string, IDataObject | undefined>;
	for (const target of ['headers', 'qs', 'body'] as const) {
		const values = props[target];
		if (!values) continue;
		const existing = ((requestOptions as unknown as Record<string, IDataObject | undefined>)[target] ??= {}) as IDataObject;
		for (const [key, value] of Object.entries(values)) existing[key] = resolve(value) as never;
	}
	if (props.auth) {
		const auth = props.auth as IDataObject;
		requestOptions.auth = { username: String(resolve(auth.username)), password: String(resolve(auth.password)) };
	}
	return requestOptions;
}

/** n8n's CredentialsHelper for tests: returns the given credential data and applies `authenticate` as n8n does. */
export class TestCredentialsHelper extends workflowLib.ICredentialsHelper {
	constructor(private readonly data: ICredentialDataDecryptedObject) {
		super();
	}
	getParentTypes(): string[] {
		return [];
	}
	isCredentialUsableByNode(): boolean {
		return true;
	}
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow?: WorkflowType,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		return await applyAuthentication(credentials, typeName, requestOptions, workflow, node);
	}
	async preAuthentication(): Promise<undefined> {
		return undefined;
	}
	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}
	async getCredentials(): Promise<never> {
		throw new Error('getCredentials is not used by these tests');
	}
	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		return { ...this.data };
	}
	async updateCredentials(): Promise<void> {}
	async updateCredentialsOauthTokenData(): Promise<void> {}
	getCredentialsProperties(type: string) {
		return credentialTypes[type]?.properties ?? [];
	}
}

/** Emits the given items (or one empty item): the start of every test workflow. */
class InputNode implements INodeType {
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

	static items: IDataObject[] = [{}];

	async execute(): Promise<INodeExecutionData[][]> {
		return [InputNode.items.map((json, index) => ({ json, pairedItem: { item: index } }))];
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
	credentials: { baseUrl: string; accessToken: string };
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

export interface RunNodeOptions {
	parameters: IDataObject;
	credentials: { baseUrl: string; accessToken: string };
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

function defaultNodeType(): INodeType {
	// Loaded lazily so the harness works before the action node exists.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const mod = require('../../nodes/Appointments/Appointments.node') as { Appointments: new () => INodeType };
	return new mod.Appointments();
}

let executionCounter = 0;

export async function runNode(options: RunNodeOptions): Promise<RunNodeResult> {
	const nodeType = options.nodeType ?? defaultNodeType();
	const typeName = `test.${nodeType.description.name}`;
	const version =
		options.nodeTypeVersion ??
		(Array.isArray(nodeType.description.version)
			? Math.max(...nodeType.description.version)
			: nodeType.description.version);
	InputNode.items = options.input ?? [{}];

	const nodes: INode[] = [
		{ id: 'input', name: 'Input', type: 'test.testInput', typeVersion: 1, position: [0, 0], parameters: {} },
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
	const nodeTypes = new TestNodeTypes({ 'test.testInput': new InputNode(), [typeName]: nodeType });
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
	const hooks = new core.ExecutionLifecycleHooks('manual', executionId, {
		id: 'wf-test',
		name: 'Test workflow',
		active: false,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		nodes,
		connections: {},
		activeVersionId: null,
	} as never);

	const additionalData = testAdditionalData({
		credentials: options.credentials,
		publicBase: 'http://127.0.0.1:5678',
		instanceBase: 'http://127.0.0.1',
		where: 'in tests',
		extra: { hooks, executionId },
	});

	const logStart = logs.length;
	const workflowExecute = new core.WorkflowExecute(additionalData, 'manual');
	const run = await workflowExecute.run({ workflow, startNode: workflow.getNode('Input')! });

	const taskData = run.data.resultData.runData.Node?.[0];
	const items = (taskData?.data?.main ?? []).map((output) => output ?? []);
	const error = (taskData?.error ?? run.data.resultData.error) as Error | undefined;
	return { items, error, logs: logs.slice(logStart), run };
}

/**
 * Runs the credential type's `test` request as n8n's credential tester does: the request's expressions are
 * resolved with `$credentials` by n8n's own expression engine, the credential's `authenticate` is applied, the
 * request is sent over real HTTP, and a `responseCode` rule matching the status turns into the failure message.
 */
export async function testCredential(
	credentials: { baseUrl: string; accessToken: string },
	typeName = 'appointmentsApi',
): Promise<{ status: 'OK' | 'Error'; message: string; url?: string }> {
	const type = credentialTypes[typeName];
	if (!type?.test) throw new Error(`credential ${typeName} has no test`);
	const node: INode = { id: 'c', name: 'Credential test', type: 'test.testInput', typeVersion: 1, position: [0, 0], parameters: {} };
	const workflow = new workflowLib.Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new TestNodeTypes({ 'test.testInput': new InputNode() }),
	});
	const resolve = (value: unknown) =>
		typeof value === 'string' && value.startsWith('=')
			? workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials } as never, undefined, '')
			: value;
	const request = type.test.request;
	const baseURL = String(resolve(request.baseURL) ?? '');
	const url = new URL(String(resolve(request.url)), baseURL.endsWith('/') ? baseURL : baseURL + '/').href;
	// n8n joins baseURL and url as axios does: base without trailing slash + url with leading slash.
	const joined = String(resolve(request.url)).startsWith('/') ? baseURL.replace(/\/+$/, '') + String(resolve(request.url)) : url;
	const options = await applyAuthentication({ ...credentials }, typeName, { url: joined, method: request.method ?? 'GET', headers: {} }, workflow, node);
	let status: number;
	try {
		const response = await fetch(joined, { method: options.method, headers: options.headers as Record<string, string> });
		status = response.status;
		await response.arrayBuffer();
	} catch (error) {
		const cause = (error as { cause?: { code?: string; message?: string } }).cause;
		return { status: 'Error', message: `Couldn't connect with these settings: ${cause?.code ?? (error as Error).message}`, url: joined };
	}
	for (const rule of type.test.rules ?? []) {
		if (rule.type === 'responseCode' && rule.properties.value === status) {
			return { status: 'Error', message: rule.properties.message, url: joined };
		}
	}
	if (status >= 400) return { status: 'Error', message: `Request failed with status code ${status}`, url: joined };
	return { status: 'OK', message: 'Connection tested successfully', url: joined };
}
