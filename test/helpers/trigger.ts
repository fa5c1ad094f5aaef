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
 *     onRequest?: (r: { mode, path, body, closed }) => number | undefined | Promise<…>,
 *                                        fault injection: answer this status without calling the node;
 *                                        `closed` settles when the client's connection closed (hang up, await
 *                                        it, return undefined: the node reads a delivery whose caller is gone)
 *     startFails?: (items) => boolean | Promise<boolean>,
 *                                        fault injection after the node: n8n could not store or queue the
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
 *
 * The pieces: triggerWorkflow.ts (the saved workflow, activation and test webhooks), triggerReceiver.ts (the
 * https receiver and webhook() as n8n calls and answers it), triggerResponse.ts (the response object webhook()
 * writes to).
 */
import type { IDataObject, INodeType, WorkflowActivateMode } from 'n8n-workflow';

import { capturedLogs } from './n8n';
import { poll } from './poll';
import {
	Receiver,
	receiverCa,
	startReceiver,
	type AnsweredRequest,
	type CallResult,
	type ReceiverOptions,
	type TriggerMode,
	type WorkflowStart,
} from './triggerReceiver';
import { copy, TriggerWorkflow, type SavedTriggerOptions } from './triggerWorkflow';

export type { AnsweredRequest, CallResult, TriggerMode, WorkflowStart };
export { capturedLogs, receiverCa };

export interface TriggerHarnessOptions extends SavedTriggerOptions, ReceiverOptions {
	nodeType?: INodeType;
	webhookBaseUrl?: string;
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
	callWebhook(
		body: unknown,
		options?: { headers?: Record<string, string>; mode?: TriggerMode },
	): Promise<CallResult>;
	idle(): Promise<void>;
	logs(): string[];
	close(): Promise<void>;
}

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

export async function startTriggerHarness(options: TriggerHarnessOptions): Promise<TriggerHarness> {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const nodeType: INodeType =
		options.nodeType ??
		new (require('../../nodes/Appointments/AppointmentsTrigger.node').AppointmentsTrigger)();
	const logStart = capturedLogs().length;
	const { server, origin, cert } = await startReceiver();
	const publicBase = (options.webhookBaseUrl ?? origin).replace(/\/+$/, '');
	const workflow = new TriggerWorkflow(nodeType, options, publicBase);
	const receiver = new Receiver(workflow, options);
	receiver.serve(server);

	return {
		ca: cert,
		origin,
		get productionUrl() {
			return `${publicBase}${receiver.pathOf('production')}`;
		},
		get testUrl() {
			return `${publicBase}${receiver.pathOf('test')}`;
		},
		get active() {
			return workflow.production !== undefined;
		},
		get testListening() {
			return workflow.test !== undefined;
		},
		starts: receiver.starts,
		responses: receiver.responses,
		errors: receiver.errors,
		activate: (activation) => workflow.activate(activation),
		deactivate: () => workflow.deactivate(),
		startTest: () => workflow.startTest(),
		stopTest: () => workflow.stopTest(),
		staticData: () => copy(workflow.saved.staticData),
		clearStaticData: () => {
			workflow.saved.staticData = {};
		},
		renameNode: (name: string) => {
			workflow.saved.node = { ...workflow.saved.node, name };
		},
		setParameters: (parameters: IDataObject) => {
			workflow.saved.node = {
				...workflow.saved.node,
				parameters: copy(parameters) as typeof workflow.saved.node.parameters,
			};
		},
		callWebhook: (body, callOptions = {}) =>
			receiver.call(body, callOptions.mode ?? 'production', callOptions.headers),
		idle: () => receiver.idle(),
		logs: () => capturedLogs().slice(logStart),
		async close() {
			await receiver.backgroundSettled();
			await new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
}
