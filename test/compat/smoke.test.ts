/**
 * Smoke test of the package on one n8n version (N8N_DEV_VERSION; `npm run test:compat` runs it on every version of
 * docs/compatibility.md, the versions at the same time): the credential's Test, Get Many and Update Status in every
 * version of the Appointments node that n8n lists, the webhook trigger's subscription on publish (n8n 1.x:
 * "activate"), one execution per delivery and the unsubscription on unpublish, and one event picked up by the
 * polling trigger.
 * n8n is driven from outside only (CLI, REST login, public API), against the sandbox on loopback.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';

import { executeWorkflow, n8nCliOk, nodeOutput } from '../../scripts/n8nCli';
import { N8N_VERSION } from '../../scripts/paths';
import { killAllOnSignals, pollUntil, stopAll } from '../../scripts/proc';
import {
	activate,
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	CREDENTIAL_TYPE,
	deactivate,
	startStack,
	type Stack,
} from '../../scripts/stack';
import { e2eUserFolder } from '../helpers/e2e';
import { setPollEvery } from '../helpers/e2eRuns';

const NODE_TYPE = 'n8n-nodes-appointments.appointments';
const TRIGGER_TYPE = 'n8n-nodes-appointments.appointmentsTrigger';
const POLLING_TYPE = 'n8n-nodes-appointments.appointmentsPollingTrigger';
const N8N_MAJOR = Number(N8N_VERSION.split('.')[0]);
const log = (m: string) => process.stderr.write(`[compat ${N8N_VERSION}] ${m}\n`);

let stack: Stack;

beforeAll(async () => {
	killAllOnSignals();
	try {
		stack = await startStack({
			userFolder: e2eUserFolder(`compat-${N8N_VERSION}`),
			owner: {
				email: 'compat@example.com',
				password: 'Compat-Passw0rd',
				firstName: 'Compat',
				lastName: 'Owner',
			},
			reimport: 'always',
			log,
		});
	} catch (e) {
		log(`ERROR: could not set up n8n ${N8N_VERSION} with the package:\n${(e as Error).message}`);
		throw e;
	}
}, 20 * 60_000);

afterAll(async () => {
	await stack?.stop();
	await stopAll();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function subscriptions(): Promise<Json[]> {
	const b: Json = await stack.admin.ok('GET', '/__sandbox/webhooks/');
	return Array.isArray(b) ? b : (b.webhooks ?? b.results ?? []);
}

async function executions(workflowId: string): Promise<Json[]> {
	const b: Json = await stack.api.ok(
		'GET',
		`/api/v1/executions?workflowId=${workflowId}&limit=250&includeData=true`,
	);
	return (b.data ?? []).sort((x: Json, y: Json) => Number(x.id) - Number(y.id));
}

async function createAppointment(body: Record<string, unknown> = {}): Promise<Json> {
	return await stack.admin.ok('POST', '/__sandbox/appointments/', {
		body: { status: 'CONFIRMED', ...body },
	});
}

/** The versions of a node type n8n has loaded from our package, e.g. [1, 2]. */
async function loadedVersions(type: string): Promise<number[]> {
	const nodes: Json[] = await stack.rest.ok('GET', '/types/nodes.json');
	return nodes
		.filter((n) => n.name === type)
		.flatMap((n) => (Array.isArray(n.version) ? n.version : [n.version]))
		.sort((a, b) => a - b);
}

describe(`package on n8n ${N8N_VERSION}`, () => {
	test('n8n is the version under test and lists our node and credential types', async () => {
		const settings: Json = await stack.rest.ok('GET', '/rest/settings');
		expect(settings.data.versionCli).toBe(N8N_VERSION);
		const nodes: Json[] = await stack.rest.ok('GET', '/types/nodes.json');
		expect(nodes.map((n) => n.name)).toEqual(
			expect.arrayContaining([NODE_TYPE, TRIGGER_TYPE, POLLING_TYPE]),
		);
		expect(await loadedVersions(NODE_TYPE)).toEqual(expect.arrayContaining([1, 2]));
		const creds: Json[] = await stack.rest.ok('GET', '/types/credentials.json');
		expect(creds.find((c) => c.name === CREDENTIAL_TYPE)?.displayName).toBe('Appointments API');
	});

	test('credential Test passes with the right token and names the problem with a wrong one', async () => {
		const testWith = async (accessToken: string) =>
			(
				await stack.rest.ok('POST', '/rest/credentials/test', {
					body: {
						credentials: {
							id: CREDENTIAL_ID,
							name: CREDENTIAL_NAME,
							type: CREDENTIAL_TYPE,
							data: { baseUrl: stack.sandboxUrl, accessToken },
						},
					},
				})
			).data;
		await stack.admin.ok('DELETE', '/__sandbox/requests/');
		expect(await testWith(stack.apiToken)).toEqual(expect.objectContaining({ status: 'OK' }));
		const bad = await testWith('not-the-right-token');
		expect(bad.status).toBe('Error');
		// n8n 1.x's credential tester gets the 401 without its response (n8n-core wraps it differently), so our rule's
		// message cannot apply and n8n's generic one shows (docs/compatibility.md).
		expect(bad.message).toMatch(
			N8N_MAJOR >= 2
				? /access token is invalid/i
				: /^Authorization failed - please check your credentials$/,
		);
		expect(bad.message).not.toContain('not-the-right-token');
		const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
		expect(requests.map((r: Json) => `${r.path} ${r.status}`)).toEqual(
			expect.arrayContaining(['/api/v3/webhooks/ 200', '/api/v3/webhooks/ 401']),
		);
	});

	test('Get Many and Update Status run in every version of the node n8n lists', async () => {
		const versions = await loadedVersions(NODE_TYPE);
		const statusFor = (v: number) => ['NO_SHOW', 'ATTENDED', 'PENDING', 'IN_PROGRESS'][v - 1];
		// Enough CONFIRMED appointments for two per version.
		for (let i = 0; i < 2 * versions.length; i++) await createAppointment();
		const cred = { [CREDENTIAL_TYPE]: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };
		const nodes: Json[] = [
			{
				id: 'c0a1b2c3-0000-4000-8000-000000000000',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
		];
		const connections: Json = {};
		let previous = 'Start';
		versions.forEach((v, i) => {
			const getMany = `Get Many v${v}`;
			const update = `Update Status v${v}`;
			const key = '={{ $json.appointment_key }}';
			nodes.push(
				{
					id: `c0a1b2c3-0000-4000-8000-0000000000${i}1`,
					name: getMany,
					type: NODE_TYPE,
					typeVersion: v,
					position: [200 + 400 * i, 0],
					executeOnce: true,
					parameters: {
						resource: 'appointment',
						operation: 'getAll',
						returnAll: false,
						limit: 2,
						dateRange: 'all',
						filters: { status: 'CONFIRMED' },
						options: {},
					},
					credentials: cred,
				},
				{
					id: `c0a1b2c3-0000-4000-8000-0000000000${i}2`,
					name: update,
					type: NODE_TYPE,
					typeVersion: v,
					position: [400 + 400 * i, 0],
					parameters: {
						resource: 'appointment',
						operation: 'updateStatus',
						appointmentKey: v === 1 ? key : { __rl: true, mode: 'id', value: key },
						status: statusFor(v),
						options: {},
					},
					credentials: cred,
				},
			);
			connections[previous] = { main: [[{ node: getMany, type: 'main', index: 0 }]] };
			connections[getMany] = { main: [[{ node: update, type: 'main', index: 0 }]] };
			previous = update;
		});
		const id = 'compatGetUpdate';
		const file = path.join(stack.n8n.userFolder, 'compat-get-update.json');
		fs.writeFileSync(
			file,
			JSON.stringify([
				{
					id,
					name: 'Compat: Get Many and Update Status',
					nodes,
					connections,
					settings: { executionOrder: 'v1' },
				},
			]),
		);
		await n8nCliOk(stack.n8n, ['import:workflow', `--input=${file}`]);

		const r = await executeWorkflow(stack.n8n, id);
		if (r.code !== 0 || !r.run)
			throw new Error(`workflow failed (exit ${r.code}):\n${r.log.slice(-4000)}`);
		expect(r.run.status ?? (r.run.finished ? 'success' : 'error')).toBe('success');
		const seen = new Set<string>();
		for (const v of versions) {
			const listed = nodeOutput(r.run, `Get Many v${v}`).map((a) => a.appointment_key);
			expect(listed).toHaveLength(2);
			for (const k of listed) {
				expect(seen.has(k)).toBe(false); // the previous version's update took its two out of CONFIRMED
				seen.add(k);
			}
			const updated = nodeOutput(r.run, `Update Status v${v}`);
			expect(updated.map((a) => a.appointment_key)).toEqual(listed);
			for (const a of updated) expect(a.status).toBe(statusFor(v));
			for (const k of listed)
				expect((await stack.admin.ok('GET', `/__sandbox/appointments/${k}/`)).status).toBe(
					statusFor(v),
				);
		}
	});

	test('webhook trigger: publishing subscribes once, a delivery runs the workflow once, unpublishing unsubscribes', async () => {
		const wf = 'apptReactToEvents';
		const trigger = stack.examples
			.find((e) => e.id === wf)!
			.json.nodes.find((n: Json) => n.type === TRIGGER_TYPE);
		const ours = async () =>
			(await subscriptions()).filter((s) =>
				String(s.url).startsWith(`${stack.n8n.url}/webhook/${trigger.webhookId}/`),
			);
		const before = (await subscriptions()).length;
		await activate(stack.api, wf);
		try {
			const subs = await pollUntil('the subscription', async () =>
				(await ours()).length ? await ours() : undefined,
			);
			expect(subs).toHaveLength(1);
			const created = await createAppointment();
			const [run] = await pollUntil(
				'the execution of the delivery',
				async () => {
					const done = (await executions(wf)).filter(
						(e) => e.finished || e.status === 'success' || e.status === 'error',
					);
					return done.length ? done : undefined;
				},
				{ timeoutMs: 60_000 },
			);
			expect(run.status).toBe('success');
			const items = nodeOutput(run, trigger.name);
			expect(items.map((i) => `${i.event} ${i.data.appointment_key}`)).toEqual([
				`appointment.created ${created.appointment_key}`,
			]);
			expect(await executions(wf)).toHaveLength(1);
		} finally {
			await deactivate(stack.api, wf);
		}
		await pollUntil('the subscription removed', async () =>
			(await ours()).length === 0 ? true : undefined,
		);
		expect(await subscriptions()).toHaveLength(before);
	});

	test(
		'polling trigger: the first poll after publishing takes the baseline, the next one picks up a new appointment',
		async () => {
			const wf = 'apptPollEvents';
			const triggerName = stack.examples
				.find((e) => e.id === wf)!
				.json.nodes.find((n: Json) => n.type === POLLING_TYPE).name;
			// Polls every 15 s instead of every minute (pollTimesEvery: the poll itself is the same), so the wait for the
			// next poll takes seconds; example 7 as shipped runs in the queue suite.
			await setPollEvery(stack.api, wf, triggerName, 15);
			await stack.admin.ok('DELETE', '/__sandbox/requests/');
			const since = Date.now();
			await activate(stack.api, wf);
			try {
				// The activation poll (n8n polls once when it publishes) took the baseline: its first list request and
				// every page of its window are in the sandbox's request log.
				await pollUntil(
					'the whole activation poll',
					async () => {
						const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
						const lists = requests.filter(
							(r: Json) => r.path === '/api/v3/appointments/' && Date.parse(r.at) >= since,
						);
						const first = lists.find((r: Json) => r.query.page === undefined);
						if (!first) return undefined;
						const page: Json = await stack.sandboxApi.ok(
							'GET',
							`/api/v3/appointments/?${new URLSearchParams(first.query)}`,
						);
						const pages = Math.max(1, Math.ceil(page.count / Math.max(1, page.results.length)));
						const window = (r: Json) => r.query.start_date === first.query.start_date;
						return lists.some((r: Json) => window(r) && Number(r.query.page ?? 1) === pages)
							? true
							: undefined;
					},
					{ timeoutMs: 90_000, intervalMs: 1000 },
				);
				expect(await executions(wf)).toEqual([]);
				const start = DateTime.now()
					.setZone('America/Santiago')
					.plus({ days: 2 })
					.set({ hour: 11, minute: 0, second: 0, millisecond: 0 });
				const created = await createAppointment({ start_date: start.toISO() });
				const [run] = await pollUntil(
					'a poll that ran the workflow',
					async () => {
						const done = (await executions(wf)).filter(
							(e) => e.status !== 'running' && e.finished !== undefined,
						);
						return done.length ? done : undefined;
					},
					{ timeoutMs: 150_000, intervalMs: 1000 },
				);
				expect(run.status).toBe('success');
				expect(
					nodeOutput(run, triggerName).map((i) => `${i.event} ${i.data.appointment_key}`),
				).toEqual([`appointment.created ${created.appointment_key}`]);
			} finally {
				await deactivate(stack.api, wf);
			}
		},
		5 * 60_000,
	);
});
