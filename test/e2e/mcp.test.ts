/**
 * The Appointments node as an AI agent's tool, proven with a real MCP client: a published workflow in a real
 * n8n 2.41.1 whose MCP Server Trigger exposes two Appointments Tool nodes (Get Many with a name filter and a
 * limit, Update Status), both filled by the client through $fromAI. The official MCP client
 * (@modelcontextprotocol/sdk, Streamable HTTP over https with the stack's self-signed certificate) lists the
 * tools and calls them; the sandbox then holds what the calls did.
 */
import crypto from 'node:crypto';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';

import { startE2EStack } from '../helpers/e2e';
import { pollUntil, stopAll } from '../../scripts/proc';
import { activate, CREDENTIAL_ID, CREDENTIAL_NAME, type Stack } from '../../scripts/stack';

const TOOL_TYPE = 'n8n-nodes-appointments.appointmentsTool';
const credentials = { appointmentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };

let stack: Stack;
let client: Client;
let agent: Agent;
const mcpPath = `appointments-${crypto.randomUUID().slice(0, 8)}`;

function toolWorkflow() {
	const tool = (name: string, y: number, parameters: Record<string, unknown>) => ({
		id: crypto.randomUUID(),
		name,
		type: TOOL_TYPE,
		typeVersion: 2,
		position: [0, y],
		parameters,
		credentials,
	});
	return {
		name: 'Appointments MCP server',
		nodes: [
			{
				id: crypto.randomUUID(),
				name: 'MCP Server Trigger',
				type: '@n8n/n8n-nodes-langchain.mcpTrigger',
				typeVersion: 2,
				position: [0, -200],
				webhookId: crypto.randomUUID(),
				parameters: { path: mcpPath },
			},
			tool('find_appointments', 0, {
				resource: 'appointment',
				operation: 'getAll',
				limit: "={{ $fromAI('limit', 'How many appointments to return at most', 'number') }}",
				filters: {
					name: "={{ $fromAI('person_name', 'Part of the name of the person the appointment is for', 'string') }}",
				},
			}),
			tool('update_appointment_status', 200, {
				resource: 'appointment',
				operation: 'updateStatus',
				appointmentKey: {
					__rl: true,
					mode: 'id',
					value:
						"={{ $fromAI('appointment_key', 'The appointment_key of the appointment, from find_appointments', 'string') }}",
				},
				status: "={{ $fromAI('status', 'The new status, e.g. ATTENDED or NO_SHOW', 'string') }}",
			}),
		],
		connections: {
			find_appointments: { ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]] },
			update_appointment_status: {
				ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]],
			},
		},
		settings: { executionOrder: 'v1' },
	};
}

beforeAll(async () => {
	stack = await startE2EStack('e2e-mcp', {
		email: 'mcp@example.com',
		password: 'Mcp-Passw0rd',
		firstName: 'MCP',
		lastName: 'Owner',
	});
	const created = await stack.api.ok('POST', '/api/v1/workflows', { body: toolWorkflow() });
	await activate(stack.api, created.id);
	agent = new Agent({ connect: { ca: stack.n8n.cert.cert } });
	const transport = () =>
		new StreamableHTTPClientTransport(new URL(`${stack.n8n.url}/mcp/${mcpPath}`), {
			fetch: async (url, init) =>
				(await undiciFetch(url as string, {
					...(init as object),
					dispatcher: agent,
				})) as unknown as Response,
		});
	// n8n registers the production URL as part of activation, but the first request can still find it missing
	// for a moment: connect (the MCP initialize request) until it is served.
	client = await pollUntil(
		`the MCP server at ${stack.n8n.url}/mcp/${mcpPath}`,
		async () => {
			const candidate = new Client({ name: 'appointments-e2e', version: '1.0.0' });
			await candidate.connect(transport());
			return candidate;
		},
		{ timeoutMs: 60_000, intervalMs: 500 },
	);
}, 20 * 60_000);

afterAll(async () => {
	await client?.close().catch(() => undefined);
	await agent?.close();
	await stack?.stop();
	await stopAll();
});

function parsed(result: unknown): any {
	const content = (result as { content: Array<{ type: string; text: string }> }).content;
	expect(content[0].type).toBe('text');
	return JSON.parse(content[0].text);
}

test('the client lists both tools with their operation descriptions and $fromAI inputs', async () => {
	const { tools } = await client.listTools();
	const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
	expect(Object.keys(byName).sort()).toEqual(['find_appointments', 'update_appointment_status']);
	expect(byName.find_appointments.description).toMatch(
		/^Finds appointments .* look up the appointment_key/,
	);
	expect(Object.keys(byName.find_appointments.inputSchema.properties ?? {}).sort()).toEqual([
		'limit',
		'person_name',
	]);
	expect(byName.update_appointment_status.description).toMatch(
		/^Sets the status of one appointment/,
	);
	expect(Object.keys(byName.update_appointment_status.inputSchema.properties ?? {}).sort()).toEqual(
		['appointment_key', 'status'],
	);
});

test('Get Many with a name filter, then Update Status: the sandbox holds the new status', async () => {
	const { appointments } = await stack.admin.ok('GET', '/__sandbox/appointments/');
	// A first name without accents, so the sandbox's name matching and this plain comparison agree.
	const person = appointments.find(
		(a: any) => a.status === 'CONFIRMED' && /^[A-Za-z]+ /.test(a.person.full_name),
	).person.full_name as string;
	const part = person.split(' ')[0].toLowerCase();
	const matching = appointments.filter((a: any) => a.person.full_name.toLowerCase().includes(part));

	const found = parsed(
		await client.callTool({
			name: 'find_appointments',
			arguments: { person_name: part, limit: 50 },
		}),
	);
	const list: any[] = Array.isArray(found) ? found : [found];
	expect(list.length).toBe(Math.min(50, matching.length));
	for (const a of list) {
		expect(a.person.full_name.toLowerCase()).toContain(part);
		// Simplified: what an agent needs, calendar key included, nothing else.
		expect(Object.keys(a).sort()).toEqual([
			'appointment_key',
			'calendar',
			'person',
			'search_code',
			'start_date',
			'status',
		]);
	}

	const target = list.find((a) => a.status === 'CONFIRMED');
	expect(target).toBeDefined();
	const updated = parsed(
		await client.callTool({
			name: 'update_appointment_status',
			arguments: { appointment_key: target.appointment_key, status: 'ATTENDED' },
		}),
	);
	const one = Array.isArray(updated) ? updated[0] : updated;
	expect(one).toMatchObject({ appointment_key: target.appointment_key, status: 'ATTENDED' });
	const stored = await stack.admin.ok('GET', `/__sandbox/appointments/${target.appointment_key}/`);
	expect(stored.status).toBe('ATTENDED');
});

test('a bad input from the agent comes back as a readable tool error and changes nothing', async () => {
	const { requests: before } = await stack.admin.ok('GET', '/__sandbox/requests/');
	const result = await client.callTool({
		name: 'update_appointment_status',
		arguments: { appointment_key: 'the next one', status: 'ATTENDED' },
	});
	const text = JSON.stringify(result);
	// Version 2 names the field as it labels it: "Appointment".
	expect(text).toMatch(/Appointment\W+\(item \d+\) must be a UUID/);
	const { requests: after } = await stack.admin.ok('GET', '/__sandbox/requests/');
	expect(after.filter((r: any) => r.method === 'PATCH').length).toBe(
		before.filter((r: any) => r.method === 'PATCH').length,
	);
});
