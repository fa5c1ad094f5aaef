/**
 * The trigger's Filters in a real n8n 2.41.1 (https on localhost, our package installed as a community package)
 * against the sandbox: a notification whose appointment is of another calendar is answered 200 and n8n records
 * no execution for it; one of the picked calendar runs the workflow once.
 */
import crypto from 'node:crypto';

import { startE2EStack } from '../helpers/e2e';
import { executions, TRIGGER_TYPE } from '../helpers/e2eRuns';
import { pollUntil, stopAll } from '../../scripts/proc';
import {
	activate,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	deactivate,
	type Stack,
} from '../../scripts/stack';

let stack: Stack;

beforeAll(async () => {
	stack = await startE2EStack('e2e-trigger-filters', {
		email: 'filters@example.com',
		password: 'Filters-Passw0rd',
		firstName: 'Fil',
		lastName: 'Ters',
	});
}, 20 * 60_000);

afterAll(async () => {
	await stack?.stop();
	await stopAll();
});

async function delivered(key: string): Promise<any[]> {
	return await pollUntil(
		`the delivery of ${key}`,
		async () => {
			const d: any = await stack.admin.ok('GET', '/__sandbox/deliveries/');
			const mine = d.deliveries.filter((x: any) => x.appointment_key === key);
			if (d.pending === 0 && mine.some((x: any) => x.ok || x.gave_up)) return mine;
			throw new Error(`pending ${d.pending}, deliveries so far: ${JSON.stringify(mine)}`); // shown on time-out
		},
		{ timeoutMs: 30000 },
	);
}

test('an event of another calendar: 200 to the service and no execution; the picked calendar: one execution', async () => {
	const all: any[] = (await stack.admin.ok('GET', '/__sandbox/appointments/')).appointments;
	const calendars = [...new Set(all.map((a) => a.calendar.calendar_key))];
	const [wanted, other] = calendars;
	const created = await stack.api.ok('POST', '/api/v1/workflows', {
		body: {
			name: 'Filtered trigger',
			nodes: [
				{
					id: crypto.randomUUID(),
					name: 'On Created',
					type: TRIGGER_TYPE,
					typeVersion: 1,
					position: [0, 0],
					webhookId: crypto.randomUUID(),
					parameters: {
						events: ['appointment.created'],
						filters: {
							calendars: { calendar: [{ calendar: { __rl: true, mode: 'list', value: wanted } }] },
						},
						options: {},
					},
					credentials: { appointmentsApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		},
	});
	const webhookId = created.nodes[0].webhookId;
	await activate(stack.api, created.id);
	try {
		await pollUntil('its subscription', async () => {
			const hooks: any[] = (await stack.admin.ok('GET', '/__sandbox/webhooks/')).webhooks;
			return hooks.some((h) => String(h.url).includes(`/webhook/${webhookId}/`)) ? true : undefined;
		});
		const theirs = await stack.admin.ok('POST', '/__sandbox/appointments/', {
			body: { calendar: { calendar_key: other } },
		});
		const outDeliveries = await delivered(theirs.appointment_key);
		expect(outDeliveries.map((d) => d.status)).toEqual([200]);
		const mine = await stack.admin.ok('POST', '/__sandbox/appointments/', {
			body: { calendar: { calendar_key: wanted } },
		});
		expect((await delivered(mine.appointment_key)).map((d) => d.status)).toEqual([200]);
		const runs = await pollUntil(
			'the execution of the matching event',
			async () => {
				const list = await executions(stack, created.id);
				return list.length > 0 &&
					list.every((e) => e.finished || e.status === 'success' || e.status === 'error')
					? list
					: undefined;
			},
			{ timeoutMs: 60000 },
		);
		// The filtered-out delivery came first and was answered before the matching one: had it started an
		// execution, it would be listed by now.
		expect(runs).toHaveLength(1);
		const ex: any = await stack.api.ok('GET', `/api/v1/executions/${runs[0].id}?includeData=true`);
		const items = ex.data.resultData.runData['On Created'][0].data.main[0];
		expect(items.map((i: any) => i.json.data.appointment_key)).toEqual([mine.appointment_key]);
	} finally {
		await deactivate(stack.api, created.id);
	}
});
