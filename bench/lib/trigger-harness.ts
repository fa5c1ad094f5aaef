/**
 * Part 3's harness: webhook() called as n8n 2.41 calls it for a production webhook (a new Workflow and n8n-core
 * WebhookContext per request), realistic envelopes, and the plainest webhook() to compare with.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { INode, INodeType, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-n8n-'));
}

const EVENTS = ['appointment.created', 'appointment.updated', 'appointment.canceled'];
const STATUSES = ['CONFIRMED', 'PENDING', 'ATTENDED', 'NO_SHOW', 'CANCELED'];

export type Core = typeof import('n8n-core');
export type WorkflowLib = typeof import('n8n-workflow');

export function quietN8n(workflowLib: WorkflowLib): void {
	const noop = () => undefined;
	const logger: Record<string, unknown> = { error: noop, warn: noop, info: noop, debug: noop };
	logger.scoped = () => logger;
	workflowLib.LoggerProxy.init(logger as never);
	const fromCore = (id: string) =>
		require(require.resolve(id, { paths: [require.resolve('n8n-core')] }));
	const { Container } = fromCore('@n8n/di') as {
		Container: { set: (token: unknown, value: unknown) => void };
	};
	const { Logger } = fromCore('@n8n/backend-common') as { Logger: unknown };
	Container.set(Logger, logger);
}

/** A distinct, realistic envelope for sequence number `i` (keys and timestamps differ for every i). */
export function envelope(i: number, salt: string): Record<string, unknown> {
	const hex = (i + 0x10000000).toString(16);
	const start = new Date(Date.UTC(2026, 10, 24, 8 + (i % 10), (i * 7) % 60))
		.toISOString()
		.replace('.000Z', '-03:00');
	return {
		event: EVENTS[i % 3],
		timestamp: new Date(1_790_000_000_000 + i * 1000).toISOString().replace('Z', '+00:00'),
		data: {
			appointment_key: `${salt}${hex.slice(1)}-7c1e-4b5a-9d2f-${hex}${hex.slice(0, 4)}`, // a UUID, as the trigger requires
			search_code: `APT-${hex.toUpperCase()}`,
			status: STATUSES[i % STATUSES.length],
			start_date: start,
			calendar: {
				calendar_key: '3f0c9a52-6a7e-4d1b-8c33-5b2e9f1d7a40',
				name: 'Dr. Ana Rojas - Cardiología',
			},
			person: { full_name: `Paciente Número ${i}`, email: `paciente.${i}@example.com` },
		},
	};
}

interface Harness {
	/** webhook() with a new Workflow and WebhookContext, as n8n builds them per request. */
	call(body: unknown): Promise<IWebhookResponseData>;
	/** The same new Workflow and WebhookContext, without calling webhook(). */
	contextOnly(): unknown;
	workflowId: string;
	nodeId: string;
}

/** `reuse`: one Workflow and context for every call (the memory run, where n8n's construction only costs time). */
export function harness(
	core: Core,
	workflowLib: WorkflowLib,
	trigger: INodeType,
	workflowId: string,
	reuse = false,
): Harness {
	const nodeId = `trigger-${workflowId}`;
	const { request, response, additionalData } = fakeHttp();
	const context = contextFactory(core, workflowLib, trigger, workflowId, additionalData);
	const webhook = trigger.webhook!;
	const reused = reuse ? context() : undefined;
	return {
		workflowId,
		nodeId,
		async call(body) {
			request.body = body;
			response.writableFinished = false;
			const answer = await webhook.call((reused ?? context()) as unknown as IWebhookFunctions);
			response.writableFinished = true;
			response.emit('close');
			return answer;
		},
		contextOnly: context,
	};
}

/** The request and response n8n hands a webhook, in the additional data of an execution. */
function fakeHttp() {
	const request = {
		body: undefined as unknown,
		headers: { 'content-type': 'application/json' },
		params: {},
		query: {},
	};
	// n8n answers every request after webhook() returned; the trigger reads the answer at its 'close' (Node's
	// ServerResponse emits it last): sent, with its status. Until then it is open (not finished), or the trigger
	// would take the caller for gone and start nothing.
	const response = Object.assign(new EventEmitter(), {
		statusCode: 200,
		writableFinished: false,
		writeHead: () => response,
		end: () => response,
		status: () => response,
		json: () => response,
		send: () => response,
		setHeader: () => response,
	});
	const additionalData = {
		httpRequest: request,
		httpResponse: response,
		executionId: undefined,
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		variables: {},
	} as never;
	return { request, response, additionalData };
}

/** A new Workflow (the saved trigger, as n8n loads it from the database) and WebhookContext per call. */
function contextFactory(
	core: Core,
	workflowLib: WorkflowLib,
	trigger: INodeType,
	workflowId: string,
	additionalData: never,
): () => unknown {
	// What n8n loads from the database for every request: new objects each time.
	const savedNode = (): INode => ({
		id: `trigger-${workflowId}`,
		name: 'Appointments Trigger',
		type: 'bench.appointmentsTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: { events: [...EVENTS], options: {} },
		webhookId: `wh-${workflowId}`,
		credentials: { appointmentsApi: { id: 'cred-1', name: 'Appointments account' } },
	});
	const nodeTypes = {
		getByName: () => trigger,
		getByNameAndVersion: (_n: string, v?: number) =>
			workflowLib.NodeHelpers.getVersionedNodeType(trigger, v),
		getKnownTypes: () => ({}),
	};
	const description = trigger.description.webhooks?.[0];
	return () => {
		const workflow = new workflowLib.Workflow({
			id: workflowId,
			name: 'Bench trigger',
			nodes: [savedNode()],
			connections: {},
			active: true,
			nodeTypes: nodeTypes as never,
			staticData: {},
			settings: { executionOrder: 'v1' },
		});
		const node = workflow.getNode('Appointments Trigger')!;
		const webhookData = {
			httpMethod: 'POST',
			node: node.name,
			path: 'webhook',
			webhookDescription: description,
			workflowId,
			workflowExecuteAdditionalData: additionalData,
		} as never;
		return new core.WebhookContext(
			workflow,
			node,
			additionalData,
			'webhook',
			webhookData,
			[],
			null,
		);
	};
}

/**
 * The plainest trigger with our trigger's description: webhook() puts the body out as one item, nothing read or
 * checked. n8n resolves a node's parameters against its description when it builds the Workflow for a request,
 * so the same description keeps that (n8n's) cost equal on both sides and the difference is our webhook()'s.
 */
export function plainTrigger(trigger: INodeType): INodeType {
	return {
		description: trigger.description,
		async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
			return { workflowData: [[{ json: this.getBodyData() }]] };
		},
	} as unknown as INodeType;
}

export function started(r: IWebhookResponseData): boolean {
	return Array.isArray(r.workflowData) && r.workflowData[0]?.length === 1;
}

/** The trigger node and the n8n libraries part 3 runs it with. */
export interface TriggerBench {
	trigger: INodeType;
	core: Core;
	workflowLib: WorkflowLib;
}
