/**
 * The agent's way through a move, over MCP in `npm test`: an MCP server (the official SDK's McpServer, linked to
 * the SDK's client in memory) exposes Find Free Times and Reschedule › Only If Free as tools, each described by
 * the node's own tool description and run as the Appointments node in n8n-core against the sandbox over HTTP.
 * The client finds a free time, tries a taken one, gets "slot taken" with alternatives and moves to a free one.
 * (test/e2e/mcp.test.ts proves the same node behind n8n's real MCP Server Trigger, outside `npm test`.)
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { z } from 'zod';

import { Appointments } from '../../nodes/Appointments/Appointments.node';
import { runOk, useSandbox, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
useSandbox({ seed: 10 }, (started) => ({ sb, admin } = started));

const CAL = '6e1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c40';
const ACCOUNT = { accountTimeZone: 'America/Santiago' };

/** What an agent reads about an operation: the node's tool description (version 4). */
function toolDescription(operation: string): string {
	const properties = new Appointments().nodeVersions[4].description.properties as INodeProperties[];
	const field = properties.find(
		(p) => p.name === 'toolDescription' && p.displayOptions?.show?.operation?.includes(operation),
	);
	return String(field?.default);
}

const answer = (items: IDataObject[]) => ({
	content: [{ type: 'text' as const, text: JSON.stringify(items) }],
});

function appointmentsServer(): McpServer {
	const server = new McpServer({ name: 'appointments', version: '1.0.0' });
	// The SDK's registerTool types its handler from the zod shape, deeper than tsc instantiates: typed by hand.
	const registerTool = server.registerTool.bind(server) as unknown as (
		name: string,
		config: { description: string; inputSchema: Record<string, z.ZodTypeAny> },
		handler: (args: any) => Promise<ReturnType<typeof answer>>,
	) => void;
	registerTool(
		'find_free_times',
		{
			description: toolDescription('findFreeTimes'),
			inputSchema: { calendar_key: z.string(), day: z.string(), duration_minutes: z.number() },
		},
		async ({ calendar_key, day, duration_minutes }) =>
			answer(
				await runOk(
					sb,
					{
						resource: 'appointment',
						operation: 'findFreeTimes',
						calendar: { __rl: true, mode: 'id', value: calendar_key },
						dateRange: 'custom',
						startDate: day,
						endDate: day,
						duration: duration_minutes,
						limit: 5,
					},
					ACCOUNT,
				),
			),
	);
	registerTool(
		'reschedule_appointment',
		{
			description: toolDescription('reschedule'),
			inputSchema: { appointment_key: z.string(), new_start: z.string() },
		},
		async ({ appointment_key, new_start }) =>
			answer(
				await runOk(
					sb,
					{
						resource: 'appointment',
						operation: 'reschedule',
						appointmentKey: { __rl: true, mode: 'id', value: appointment_key },
						startDate: new_start,
						onlyIfFree: true,
						duration: 30,
					},
					ACCOUNT,
				),
			),
	);
	return server;
}

let client: Client;
let server: McpServer;

beforeAll(async () => {
	const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
	server = appointmentsServer();
	await server.connect(serverSide);
	client = new Client({ name: 'agent', version: '1.0.0' });
	await client.connect(clientSide);
});

afterAll(async () => {
	await client?.close();
	await server?.close();
});

async function call(name: string, args: IDataObject): Promise<IDataObject[]> {
	const result = (await client.callTool({ name, arguments: args })) as {
		content: Array<{ text: string }>;
		isError?: boolean;
	};
	expect(result.isError).toBeFalsy();
	return JSON.parse(result.content[0].text);
}

test('the tools say when to use which, and which change data', async () => {
	const { tools } = await client.listTools();
	const byName = Object.fromEntries(tools.map((t) => [t.name, String(t.description)]));
	expect(byName.find_free_times).toMatch(
		/find a free time first, then Reschedule with Only If Free/,
	);
	expect(byName.find_free_times).toMatch(/Reads only; safe to repeat/);
	expect(byName.reschedule_appointment).toMatch(/Changes data: do not repeat it/);
	expect(byName.reschedule_appointment).toMatch(/Only If Free on it refuses a taken slot/);
});

test('find a free time, try a taken one, get "slot taken" with alternatives, move to a free one', async () => {
	await admin.reset();
	const create = (start_date: string, full_name: string) =>
		admin.create({
			start_date,
			calendar: { calendar_key: CAL, name: 'Dr. Vega' },
			person: { full_name },
		});
	const inTheWay = await create('2027-11-25T09:00:00-03:00', 'Inés Rojas');
	const moving = await create('2027-11-25T16:00:00-03:00', 'Tomás Leal');

	const free = await call('find_free_times', {
		calendar_key: CAL,
		day: '2027-11-25',
		duration_minutes: 30,
	});
	expect(free.map((f) => f.when)).toEqual([
		'Thu 25 Nov, 09:30–10:00',
		'Thu 25 Nov, 09:45–10:15',
		'Thu 25 Nov, 10:00–10:30',
		'Thu 25 Nov, 10:15–10:45',
		'Thu 25 Nov, 10:30–11:00',
	]);

	const [refused] = await call('reschedule_appointment', {
		appointment_key: moving.appointment_key,
		new_start: '2027-11-25T09:15:00-03:00',
	});
	expect(refused).toMatchObject({ rescheduled: false, reason: 'slot taken' });
	expect(refused.conflicts).toEqual([
		expect.objectContaining({ search_code: inTheWay.search_code, person: 'Inés Rojas' }),
	]);
	const alternative = (refused.nextFreeTimes as IDataObject[])[0];
	expect(alternative.when).toBe('Thu 25 Nov, 09:30–10:00');

	const [moved] = await call('reschedule_appointment', {
		appointment_key: moving.appointment_key,
		new_start: alternative.start,
	});
	expect(moved).toMatchObject({ rescheduled: true, conflictsAfterMove: [] });
	const stored = await admin.appointment(String(moving.appointment_key));
	expect(Date.parse(String(stored.start_date))).toBe(Date.parse('2027-11-25T09:30:00-03:00'));
});
