/**
 * The trigger harness's receiver: webhook() called and answered as n8n 2.41's webhook server does, over https or
 * in process (test/helpers/trigger.ts is the entry point and describes the whole harness):
 *
 *   receiverCa()                          PEM of the receivers' self-signed certificate (one per machine: testCert.ts)
 *   await startReceiver(): { server, origin, cert }   an https server on 127.0.0.1, port 0, not yet answering
 *   new Receiver(workflow, options)       starts, responses, errors; serve(server) answers its requests;
 *                                         call(body, mode, headers) is the same dispatch without HTTP; idle()
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code, never shipped: it serves https */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { INodeExecutionData, IWebhookResponseData, WorkflowExecuteMode } from 'n8n-workflow';

import { testCert } from './testCert';
import { CapturingResponse } from './triggerResponse';
import { copy, type TriggerWorkflow } from './triggerWorkflow';

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

export interface CallResult {
	status: number;
	body: unknown;
	items?: INodeExecutionData[];
}

/** Fault injection and n8n's test-webhook rule (a part of TriggerHarnessOptions). */
export interface ReceiverOptions {
	/** `closed` settles when the client's connection closes (to hang up at this step and go on once it is gone). */
	onRequest?: (request: {
		mode: TriggerMode | 'none';
		path: string;
		body: unknown;
		closed: Promise<void>;
	}) => number | undefined | Promise<number | undefined>;
	startFails?: (items: INodeExecutionData[]) => boolean | Promise<boolean>;
	autoStopTest?: boolean;
}

interface Request {
	body: unknown;
	headers: Record<string, string>;
	rawBody?: Buffer;
	path: string;
}

let cachedCert: { key: string; cert: string } | undefined;

function certificate(): { key: string; cert: string } {
	cachedCert ??= testCert('trigger-receiver', { commonName: '127.0.0.1', days: 7 });
	return cachedCert;
}

/** The receiver's certificate (the same in every test file): pass `receiverCa()` to startSandbox({ ca }) before any harness exists. */
export function receiverCa(): string {
	return certificate().cert;
}

export async function startReceiver(): Promise<{ server: Server; origin: string; cert: string }> {
	const { key, cert } = certificate();
	const server = createServer({ key, cert });
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { server, origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, cert };
}

/** -1: the node answered through the response object itself (noWebhookResponse). */
const OWN_ANSWER = -1;

export class Receiver {
	readonly starts: WorkflowStart[] = [];
	readonly responses: AnsweredRequest[] = [];
	readonly errors: Error[] = [];
	private readonly background = new Set<Promise<unknown>>();

	constructor(
		private readonly workflow: TriggerWorkflow,
		private readonly options: ReceiverOptions,
	) {}

	pathOf(mode: TriggerMode): string {
		return `/${mode === 'production' ? 'webhook' : 'webhook-test'}/${this.workflow.webhookPath()}`;
	}

	private modeOf(path: string): TriggerMode | 'none' {
		if (path === this.pathOf('production')) return 'production';
		if (path === this.pathOf('test')) return 'test';
		return 'none';
	}

	/** webhook() as n8n's live (production) and test webhooks call it. */
	private async dispatch(
		mode: TriggerMode,
		request: Request,
		res: CapturingResponse,
	): Promise<CallResult> {
		const target = mode === 'production' ? this.workflow.production : this.workflow.test;
		if (!target) {
			return {
				status: 404,
				body: {
					code: 404,
					message: `The requested webhook "POST ${request.path}" is not registered.`,
				},
			};
		}
		// n8n's live webhooks build a new Workflow from the saved one for every request.
		const workflow =
			mode === 'production'
				? this.workflow.build(copy(this.workflow.saved.staticData))
				: target.workflow;
		const node = workflow.getNode(this.workflow.saved.node.name)!;
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
		const data = this.workflow.additionalData({
			httpRequest: req as never,
			httpResponse: res as never,
		});
		const executionMode: WorkflowExecuteMode = mode === 'production' ? 'webhook' : 'manual';
		const context = new core.WebhookContext(
			workflow,
			node,
			data,
			executionMode,
			target.data,
			[],
			null,
		);
		let result: IWebhookResponseData;
		try {
			result = await this.workflow.nodeType.webhook!.call(context);
		} catch (error) {
			this.errors.push(error as Error);
			return {
				status: 500,
				body: { code: 0, message: 'Workflow Webhook Error: Workflow could not be started!' },
			};
		}
		if (result.noWebhookResponse === true) return { status: OWN_ANSWER, body: undefined };
		if (result.workflowData === undefined) {
			return {
				status: 200,
				body:
					result.webhookResponse !== undefined
						? result.webhookResponse
						: { message: 'Webhook call received' },
			};
		}
		return await this.start(mode, result, res);
	}

	/** n8n stores (and queues) the execution, then answers through the same response object. */
	private async start(
		mode: TriggerMode,
		result: IWebhookResponseData,
		res: CapturingResponse,
	): Promise<CallResult> {
		const items = result.workflowData![0] ?? [];
		if ((await this.options.startFails?.(items)) === true) {
			res.status(500).end();
			return {
				status: 500,
				body: { code: 0, message: 'There was a problem executing the workflow' },
			};
		}
		this.starts.push({ mode, items, at: Date.now() });
		if (mode === 'test' && this.options.autoStopTest !== false) {
			const p = this.workflow.stopTest().catch((error) => this.errors.push(error as Error));
			this.background.add(p);
			void p.finally(() => this.background.delete(p));
		}
		// n8n 2.41 (webhook-helpers: onReceived): the description's responseData (default 'firstEntryJson', which
		// n8n sends as that literal text), 'noData' for an empty body, else webhookResponse or a fixed message.
		const responseData = this.workflow.webhookDescription.responseData ?? 'firstEntryJson';
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

	/** In process, without HTTP (for benchmarks and property tests). */
	async call(
		body: unknown,
		mode: TriggerMode,
		headers: Record<string, string> = {},
	): Promise<CallResult> {
		const capture = new CapturingResponse();
		const request = {
			body,
			headers: { 'content-type': 'application/json', ...headers },
			path: this.pathOf(mode),
		};
		const result = await this.dispatch(mode, request, capture);
		if (result.status !== OWN_ANSWER) return result;
		await capture.ended;
		return { status: capture.statusCode, body: capture.bodyValue() };
	}

	serve(server: Server): void {
		server.on('request', (req: IncomingMessage, res: ServerResponse) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', () => {
				this.answer(req, Buffer.concat(chunks), res).catch((error) => {
					this.errors.push(error as Error);
					if (!res.headersSent) res.writeHead(500);
					res.end();
				});
			});
		});
	}

	/** n8n's webhook server: 404 for unknown paths, 422 for unparseable JSON, other content types as {}. */
	private async answer(req: IncomingMessage, rawBody: Buffer, res: ServerResponse): Promise<void> {
		const path = (req.url ?? '/').split('?')[0];
		const mode = this.modeOf(path);
		const headers = req.headers as Record<string, string>;
		const send = (status: number, body: unknown) => {
			this.responses.push({ mode, path, status, body, at: Date.now() });
			if (!res.headersSent)
				res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
			res.end(body === undefined ? '' : JSON.stringify(body));
		};
		if (req.method !== 'POST' || mode === 'none') {
			send(404, {
				code: 404,
				message: `The requested webhook "${req.method} ${path}" is not registered.`,
			});
			return;
		}
		let body: unknown = {};
		if (/json/i.test(headers['content-type'] ?? '') && rawBody.length > 0) {
			try {
				body = JSON.parse(rawBody.toString('utf8'));
			} catch (error) {
				send(422, {
					code: 422,
					message: 'Failed to parse request body',
					hint: (error as Error).message,
				});
				return;
			}
		}
		const capture = new CapturingResponse(res);
		res.once('close', () => capture.lost());
		const closed = new Promise<void>((resolve) => res.once('close', resolve));
		const injected = await this.options.onRequest?.({ mode, path, body, closed });
		if (injected !== undefined) {
			send(injected, { code: injected, message: 'injected by the trigger harness' });
			return;
		}
		const result = await this.dispatch(mode, { body, headers, rawBody, path }, capture);
		if (result.status !== OWN_ANSWER) {
			send(result.status, result.body);
			return;
		}
		await capture.ended;
		this.responses.push({
			mode,
			path,
			status: capture.statusCode,
			body: capture.bodyValue(),
			at: Date.now(),
		});
		res.writeHead(capture.statusCode, capture.headers);
		res.end(capture.chunks.join(''));
	}

	async idle(): Promise<void> {
		while (this.background.size > 0) await Promise.allSettled([...this.background]);
	}

	/** What runs in the background now has ended (what it starts meanwhile is not waited for). */
	async backgroundSettled(): Promise<void> {
		await Promise.allSettled([...this.background]);
	}
}
