/**
 * Trigger harness: runs the Appointments Trigger's webhookMethods and webhook() the way n8n 2.41 does, with
 * n8n-core's real HookContext and WebhookContext (so getNodeWebhookUrl, getWorkflowStaticData, getBodyData,
 * getResponseObject, logger and helpers.httpRequestWithAuthentication are n8n's own), our credential's
 * `authenticate` applied as n8n's CredentialsHelper does, and an https receiver standing in for n8n's webhook
 * server.
 *
 *   const h = await startTriggerHarness({
 *     credentials: { baseUrl, accessToken },
 *     parameters: { events: ['appointment.created'], otherEvents: '', options: {} },
 *     // optional:
 *     nodeName?: 'Appointments Trigger', nodeId?, webhookId?, workflowId?   (random ids by default, so the
 *                                        module-level dedupe memory of one harness never meets another's)
 *     nodeType?: INodeType,              default: the AppointmentsTrigger node
 *     webhookBaseUrl?: string,           replaces n8n's public base (WEBHOOK_URL) for both URLs, e.g.
 *                                        'http://127.0.0.1:5678' to see a non-https URL refused; default: the
 *                                        receiver's own https origin
 *     onRequest?: (r: { mode, path, body }) => number | undefined,
 *                                        fault injection: answer this status without calling the node
 *     startFails?: (items) => boolean,   fault injection after the node: n8n could not store or queue the
 *                                        execution webhook() asked for (e.g. no database connection in time):
 *                                        answered 500 as n8n 2.41 does, no start recorded
 *     autoStopTest?: true,               like n8n, a test webhook is removed once a request started the workflow
 *   });
 *   receiverCa()               PEM of the receivers' self-signed certificate (the same for every harness of the
 *                              process): startSandbox({ ca: receiverCa() }) before creating harnesses
 *   h.ca                       the same PEM
 *   h.origin                   https://127.0.0.1:PORT
 *   h.productionUrl, h.testUrl the node's two webhook URLs (what getNodeWebhookUrl('default') gives per mode)
 *   await h.activate(activation = 'activate')   ActiveWorkflowManager.add: checkExists, create if false (on
 *                                        failure delete is called as n8n's clearWebhooks does and the error is
 *                                        rethrown); static data saved when changed; production URL served.
 *                                        'init' is n8n's start-up (nothing removed before); n8n's re-publish of
 *                                        an active workflow removes it first: call h.deactivate() before to mirror
 *                                        that, or not to mirror a removal that failed
 *   await h.deactivate()       clearWebhooks: delete in a Workflow built from the saved workflow, static data
 *                              saved; the production URL answers 404 from then on. Errors are rethrown.
 *   await h.startTest() / await h.stopTest()   TestWebhooks: checkExists/create and delete for the test URL,
 *                              on a copy of the saved static data that is never saved (as in n8n)
 *   h.active, h.testListening
 *   h.staticData()             the saved static data (a copy), e.g. { 'node:Appointments Trigger': {...} }
 *   h.clearStaticData()        forget the saved static data (a node whose stored key was lost)
 *   h.renameNode(name)         rename the node in the saved workflow (its static data stays under the old name)
 *   h.setParameters(p)         replace the node's parameters in the saved workflow (next activation uses them)
 *   h.starts                   every workflow start: { mode: 'production' | 'test', items: INodeExecutionData[], at }
 *   h.responses                every request the receiver answered: { mode, path, status, body, at }
 *   h.errors                   errors thrown by webhook() (answered 500 like n8n)
 *   await h.callWebhook(body, { headers?, mode?: 'production' | 'test', rawBody? })
 *        -> { status, body, items?: INodeExecutionData[] }   the same dispatch as the receiver, in process,
 *           without HTTP (for benchmarks and property tests); `body` is what n8n's body parser produced
 *   await h.idle()             waits for background work (the automatic stop of a test webhook)
 *   h.logs()                   log lines captured since the harness started (n8n LoggerProxy + DI Logger)
 *   await h.close()
 *   pollUntil(what, fn, { timeoutMs = 10000, intervalMs = 20 })   resolves fn's first truthy result
 *
 * Every production request runs in a new Workflow built from the saved workflow and static data, as n8n's live
 * webhooks do (so nothing the node keeps per Workflow or context outlives a request). Bodies reach webhook() as
 * n8n's parser leaves them: JSON content types are parsed (unparseable JSON is answered 422 before the node runs,
 * as n8n's UnprocessableRequestError), other content types arrive as {}.
 * Answers follow n8n 2.41's webhook helpers: the node's own response when it returns noWebhookResponse; 200 with
 * its webhookResponse (or {message: 'Webhook call received'}) when it starts nothing; 200 with the description's
 * responseData when it returns workflowData (onReceived; the trigger's 'noData' gives an empty body); 500 when
 * it throws. Unknown paths get 404.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code, never shipped: it serves https and polls */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { selfSignedCert } from '../../scripts/cert';
import { capturedLogs, testAdditionalData, TestNodeTypes } from './n8n';
import { poll } from './poll';

import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	Workflow as WorkflowType,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const workflowLib = require('n8n-workflow') as typeof import('n8n-workflow');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const core = require('n8n-core') as typeof import('n8n-core');

export type TriggerMode = 'production' | 'test';

export interface WorkflowStart {
	mode: TriggerMode;
	items: INodeExecutionData[];
	at: number;
}

export interface AnsweredRequest {
	mode: TriggerMode | 'none';
	path: string;
	status: number;
	body: unknown;
	at: number;
}

export interface TriggerHarnessOptions {
	credentials: { baseUrl: string; accessToken: string };
	parameters: IDataObject;
	nodeName?: string;
	nodeId?: string;
	webhookId?: string;
	workflowId?: string;
	nodeType?: INodeType;
	webhookBaseUrl?: string;
	onRequest?: (request: { mode: TriggerMode | 'none'; path: string; body: unknown }) => number | undefined;
	startFails?: (items: INodeExecutionData[]) => boolean;
	autoStopTest?: boolean;
}

export interface CallResult {
	status: number;
	body: unknown;
	items?: INodeExecutionData[];
}

export interface TriggerHarness {
	ca: string;
	origin: string;
	productionUrl: string;
	testUrl: string;
	readonly active: boolean;
	readonly testListening: boolean;
	starts: WorkflowStart[];
	responses: AnsweredRequest[];
	errors: Error[];
	activate(activation?: WorkflowActivateMode): Promise<void>;
	deactivate(): Promise<void>;
	startTest(): Promise<void>;
	stopTest(): Promise<void>;
	staticData(): IDataObject;
	clearStaticData(): void;
	renameNode(name: string): void;
	setParameters(parameters: IDataObject): void;
	callWebhook(body: unknown, options?: { headers?: Record<string, string>; mode?: TriggerMode }): Promise<CallResult>;
	idle(): Promise<void>;
	logs(): string[];
	close(): Promise<void>;
}

export { capturedLogs };

export async function pollUntil<T>(
	what: string,
	fn: () => Promise<T | undefined | null | false> | T | undefined | null | false,
	{ timeoutMs = 10000, intervalMs = 20 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
	return await poll<T>(what, fn, (value) => Boolean(value), {
		timeoutMs,
		intervalMs,
		describe: (w, ms, { last }) =>
			`Timed out after ${ms} ms waiting for ${w} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`,
	});
}

// ---------------------------------------------------------------------------------------------------------
// TLS

let cachedCert: { key: string; cert: string } | undefined;

/** The receiver's certificate (one per process): pass `receiverCa()` to startSandbox({ ca }) before any harness exists. */
export function receiverCa(): string {
	return certificate().cert;
}

function certificate(): { key: string; cert: string } {
	cachedCert ??= selfSignedCert({ commonName: '127.0.0.1', days: 7 });
	return cachedCert;
}

// ---------------------------------------------------------------------------------------------------------
// A response object with the parts of express.Response a node may use (writeHead/end/status/json/send).

class CapturingResponse extends EventEmitter {
	statusCode = 200;
	headers: Record<string, string> = {};
	chunks: string[] = [];
	finished = false;
	headersSent = false;
	private done!: () => void;
	readonly ended = new Promise<void>((resolve) => (this.done = resolve));
	setHeader(name: string, value: string): this {
		this.headers[name.toLowerCase()] = String(value);
		return this;
	}
	getHeader(name: string): string | undefined {
		return this.headers[name.toLowerCase()];
	}
	writeHead(status: number, headers?: Record<string, string>): this {
		this.statusCode = status;
		for (const [k, v] of Object.entries(headers ?? {})) this.setHeader(k, v);
		this.headersSent = true;
		return this;
	}
	status(code: number): this {
		this.statusCode = code;
		return this;
	}
	write(chunk: unknown): boolean {
		this.headersSent = true;
		this.chunks.push(String(chunk));
		return true;
	}
	end(chunk?: unknown): this {
		if (chunk !== undefined) this.chunks.push(String(chunk));
		this.headersSent = true;
		this.finished = true;
		this.done();
		this.emit('finish');
		return this;
	}
	json(value: unknown): this {
		this.setHeader('content-type', 'application/json');
		return this.end(JSON.stringify(value));
	}
	send(value: unknown): this {
		return typeof value === 'object' && value !== null ? this.json(value) : this.end(value);
	}
	bodyValue(): unknown {
		const text = this.chunks.join('');
		if (text === '') return undefined;
		try {
			return JSON.parse(text);
		} catch {
			return text;
		}
	}
}

// ---------------------------------------------------------------------------------------------------------

interface SavedWorkflow {
	id: string;
	node: INode;
	staticData: IDataObject;
}

function copy<T>(value: T): T {
	return JSON.parse(JSON.stringify(value ?? {})) as T;
}

export async function startTriggerHarness(options: TriggerHarnessOptions): Promise<TriggerHarness> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const nodeType: INodeType = options.nodeType ?? new (require('../../nodes/Appointments/AppointmentsTrigger.node').AppointmentsTrigger)();
	const typeName = `test.${nodeType.description.name}`;
	const nodeTypes = new TestNodeTypes({ [typeName]: nodeType });
	const webhookDescription = nodeType.description.webhooks![0];
	const logStart = capturedLogs().length;

	const saved: SavedWorkflow = {
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

	const { key, cert } = certificate();
	const server: Server = createServer({ key, cert });
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const publicBase = (options.webhookBaseUrl ?? origin).replace(/\/+$/, '');

	function additionalData(extra: Partial<IWorkflowExecuteAdditionalData> = {}): IWorkflowExecuteAdditionalData {
		return testAdditionalData({ credentials: options.credentials, publicBase, where: 'by the trigger harness', extra });
	}

	function buildWorkflow(staticData: IDataObject): WorkflowType {
		return new workflowLib.Workflow({
			id: saved.id,
			name: 'Trigger test workflow',
			nodes: [copy(saved.node)],
			connections: {},
			active: true,
			nodeTypes,
			staticData,
			settings: { timezone: 'America/Santiago', executionOrder: 'v1' },
		});
	}

	const webhookPath = () =>
		workflowLib.NodeHelpers.getNodeWebhookPath(saved.id, saved.node, String(webhookDescription.path), false);

	function webhookData(workflow: WorkflowType, isTest: boolean): IWebhookData {
		return {
			httpMethod: 'POST',
			node: saved.node.name,
			path: webhookPath(),
			webhookDescription,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData(),
			...(isTest ? { isTest: true } : {}),
		} as IWebhookData;
	}

	async function runHook(
		method: 'checkExists' | 'create' | 'delete',
		workflow: WorkflowType,
		data: IWebhookData,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): Promise<boolean | undefined> {
		const node = workflow.getNode(data.node);
		if (!node) return undefined;
		const fn = nodeType.webhookMethods?.[data.webhookDescription.name]?.[method];
		if (fn === undefined) return undefined;
		const context = new core.HookContext(workflow, node, data.workflowExecuteAdditionalData, mode, activation, data);
		return await fn.call(context);
	}

	function saveStaticData(workflow: WorkflowType): void {
		const data = workflow.staticData as IDataObject & { __dataChanged?: boolean };
		if (data.__dataChanged === true) {
			saved.staticData = copy(data);
			data.__dataChanged = false;
		}
	}

	// Serving state
	let production: { workflow: WorkflowType; data: IWebhookData } | undefined;
	let test: { workflow: WorkflowType; data: IWebhookData } | undefined;
	const background = new Set<Promise<unknown>>();
	const starts: WorkflowStart[] = [];
	const responses: AnsweredRequest[] = [];
	const errors: Error[] = [];

	async function clearWebhooks(): Promise<void> {
		const workflow = buildWorkflow(copy(saved.staticData));
		await runHook('delete', workflow, webhookData(workflow, false), 'internal', 'update');
		saveStaticData(workflow);
	}

	async function activate(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		const workflow = buildWorkflow(copy(saved.staticData));
		const data = webhookData(workflow, false);
		try {
			const exists = await runHook('checkExists', workflow, data, 'trigger', activation);
			if (!exists) await runHook('create', workflow, data, 'trigger', activation);
		} catch (error) {
			try {
				await clearWebhooks();
			} catch {
				// n8n logs this and reports the original error
			}
			// eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- the node's own error, passed on as n8n does
			throw error;
		}
		saveStaticData(workflow);
		production = { workflow, data };
	}

	async function deactivate(): Promise<void> {
		production = undefined;
		await clearWebhooks();
	}

	async function startTest(): Promise<void> {
		const workflow = buildWorkflow(copy(saved.staticData));
		const data = webhookData(workflow, true);
		const exists = await runHook('checkExists', workflow, data, 'manual', 'manual');
		if (!exists) await runHook('create', workflow, data, 'manual', 'manual');
		test = { workflow, data };
	}

	async function stopTest(): Promise<void> {
		const current = test;
		test = undefined;
		if (current) await runHook('delete', current.workflow, current.data, 'internal', 'update');
	}

	async function dispatch(
		mode: TriggerMode,
		request: { body: unknown; headers: Record<string, string>; rawBody?: Buffer; path: string },
		res: CapturingResponse,
	): Promise<{ status: number; body: unknown; items?: INodeExecutionData[] }> {
		const target = mode === 'production' ? production : test;
		if (!target) {
			return { status: 404, body: { code: 404, message: `The requested webhook "POST ${request.path}" is not registered.` } };
		}
		// n8n's live webhooks build a new Workflow from the saved one for every request.
		const workflow = mode === 'production' ? buildWorkflow(copy(saved.staticData)) : target.workflow;
		const node = workflow.getNode(saved.node.name)!;
		const req = {
			method: 'POST',
			url: request.path,
			path: request.path,
			headers: request.headers,
			body: request.body,
			rawBody: request.rawBody,
			params: {},
			query: {},
			contentType: request.headers['content-type']?.split(';')[0],
		};
		const data = additionalData({ httpRequest: req as never, httpResponse: res as never });
		const executionMode: WorkflowExecuteMode = mode === 'production' ? 'webhook' : 'manual';
		const context = new core.WebhookContext(workflow, node, data, executionMode, target.data, [], null);
		let result: IWebhookResponseData;
		try {
			result = await nodeType.webhook!.call(context);
		} catch (error) {
			errors.push(error as Error);
			return { status: 500, body: { code: 0, message: 'Workflow Webhook Error: Workflow could not be started!' } };
		}
		if (result.noWebhookResponse === true) return { status: -1, body: undefined };
		if (result.workflowData === undefined) {
			return { status: 200, body: result.webhookResponse !== undefined ? result.webhookResponse : { message: 'Webhook call received' } };
		}
		const items = result.workflowData[0] ?? [];
		// n8n answers through the same response object once the execution is stored (and queued).
		if (options.startFails?.(items) === true) {
			res.status(500).end();
			return { status: 500, body: { code: 0, message: 'There was a problem executing the workflow' } };
		}
		starts.push({ mode, items, at: Date.now() });
		if (mode === 'test' && options.autoStopTest !== false) {
			const p = stopTest().catch((error) => errors.push(error as Error));
			background.add(p);
			void p.finally(() => background.delete(p));
		}
		// n8n 2.41 (webhook-helpers: onReceived): the description's responseData (default 'firstEntryJson', which
		// n8n sends as that literal text), 'noData' for an empty body, else webhookResponse or a fixed message.
		const responseData = webhookDescription.responseData ?? 'firstEntryJson';
		const body =
			responseData === 'noData'
				? undefined
				: responseData
					? responseData
					: result.webhookResponse !== undefined
						? result.webhookResponse
						: { message: 'Workflow was started' };
		res.status(200).end();
		return { status: 200, body, items };
	}

	function modeOf(path: string): TriggerMode | 'none' {
		const suffix = `/${webhookPath()}`;
		if (path === `/webhook${suffix}`) return 'production';
		if (path === `/webhook-test${suffix}`) return 'test';
		return 'none';
	}

	server.on('request', (req: IncomingMessage, res: ServerResponse) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			void (async () => {
				const path = (req.url ?? '/').split('?')[0];
				const mode = modeOf(path);
				const rawBody = Buffer.concat(chunks);
				const headers = req.headers as Record<string, string>;
				const answer = (status: number, body: unknown) => {
					responses.push({ mode, path, status, body, at: Date.now() });
					if (!res.headersSent) res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
					res.end(body === undefined ? '' : JSON.stringify(body));
				};
				if (req.method !== 'POST' || mode === 'none') {
					answer(404, { code: 404, message: `The requested webhook "${req.method} ${path}" is not registered.` });
					return;
				}
				let body: unknown = {};
				if (/json/i.test(headers['content-type'] ?? '') && rawBody.length > 0) {
					try {
						body = JSON.parse(rawBody.toString('utf8'));
					} catch (error) {
						answer(422, { code: 422, message: 'Failed to parse request body', hint: (error as Error).message });
						return;
					}
				}
				const injected = options.onRequest?.({ mode, path, body });
				if (injected !== undefined) {
					answer(injected, { code: injected, message: 'injected by the trigger harness' });
					return;
				}
				const capture = new CapturingResponse();
				const result = await dispatch(mode, { body, headers, rawBody, path }, capture);
				if (result.status === -1) {
					await capture.ended;
					responses.push({ mode, path, status: capture.statusCode, body: capture.bodyValue(), at: Date.now() });
					res.writeHead(capture.statusCode, capture.headers);
					res.end(capture.chunks.join(''));
					return;
				}
				answer(result.status, result.body);
			})().catch((error) => {
				errors.push(error as Error);
				if (!res.headersSent) res.writeHead(500);
				res.end();
			});
		});
	});

	const urlFor = (mode: TriggerMode) => `${publicBase}/${mode === 'production' ? 'webhook' : 'webhook-test'}/${webhookPath()}`;

	return {
		ca: cert,
		origin,
		get productionUrl() {
			return urlFor('production');
		},
		get testUrl() {
			return urlFor('test');
		},
		get active() {
			return production !== undefined;
		},
		get testListening() {
			return test !== undefined;
		},
		starts,
		responses,
		errors,
		activate,
		deactivate,
		startTest,
		stopTest,
		staticData: () => copy(saved.staticData),
		clearStaticData: () => {
			saved.staticData = {};
		},
		renameNode: (name: string) => {
			saved.node = { ...saved.node, name };
		},
		setParameters: (parameters: IDataObject) => {
			saved.node = { ...saved.node, parameters: copy(parameters) as INode['parameters'] };
		},
		async callWebhook(body, callOptions = {}) {
			const mode = callOptions.mode ?? 'production';
			const capture = new CapturingResponse();
			const headers = { 'content-type': 'application/json', ...(callOptions.headers ?? {}) };
			const result = await dispatch(mode, { body, headers, path: `/${mode === 'production' ? 'webhook' : 'webhook-test'}/${webhookPath()}` }, capture);
			if (result.status === -1) {
				await capture.ended;
				return { status: capture.statusCode, body: capture.bodyValue() };
			}
			return result;
		},
		async idle() {
			while (background.size > 0) await Promise.allSettled([...background]);
		},
		logs: () => capturedLogs().slice(logStart),
		async close() {
			await Promise.allSettled([...background]);
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
}
