/** The workflows the real-n8n parts (6, 8, 9) create through n8n's public API: nodes in one row, each feeding the next. */
import crypto from 'node:crypto';

export const TRIGGER_TYPE = 'n8n-nodes-appointments.appointmentsTrigger';

export interface WorkflowNode {
	parameters: Record<string, unknown>;
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	[more: string]: unknown;
}

/** A node at column x (220 px apart); `extra` sets typeVersion, webhookId, credentials. */
export function node(
	name: string,
	type: string,
	x: number,
	parameters: Record<string, unknown> = {},
	extra: Record<string, unknown> = {},
): WorkflowNode {
	return {
		parameters,
		id: crypto.randomUUID(),
		name,
		type,
		typeVersion: 1,
		position: [x, 0],
		...extra,
	};
}

/** The body of POST /api/v1/workflows: `nodes` connected one after the other. */
export function chain(name: string, nodes: WorkflowNode[], settings: Record<string, unknown> = {}) {
	const connections: Record<
		string,
		{ main: Array<Array<{ node: string; type: string; index: number }>> }
	> = {};
	for (let i = 0; i + 1 < nodes.length; i++)
		connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	return { name, nodes, connections, settings: { executionOrder: 'v1', ...settings } };
}

/** n8n's Webhook node (version 2) listening on POST `path`. */
export function webhookNode(
	parameters: Record<string, unknown>,
	extra: Record<string, unknown> = {},
): WorkflowNode {
	return node(
		'Webhook',
		'n8n-nodes-base.webhook',
		0,
		{ httpMethod: 'POST', ...parameters, options: {} },
		{ typeVersion: 2, webhookId: crypto.randomUUID(), ...extra },
	);
}

export function random(prefix: string): string {
	return `${prefix}-${crypto.randomBytes(4).toString('hex')}`;
}
