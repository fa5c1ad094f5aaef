/**
 * Our package as n8n installed it (Community Nodes installer or N8N_COMMUNITY_PACKAGES), checked from outside:
 * what n8n lists and loads, what is on disk, and two workflows that must keep running across updates and restarts.
 * Shared by test/compat/installer.test.ts and test/compat/env-install.test.ts.
 *
 *   installedList(rest)            what Settings › Community Nodes lists: ["name@version", ...]
 *   ourNodeTypes(rest)             the node types of our package n8n has loaded
 *   versionOnDisk(userFolder)      the version n8n installed in ~/.n8n/nodes (undefined when absent)
 *   new PackageWorkflows(sandbox, adminToken)   a credential, a webhook-called Get Many v1 -> Update Status v2
 *       workflow and a published trigger: setUp(n8n), runGetUpdate(n8n), triggerRunsOnce(n8n),
 *       credentialUntouched(n8n), subscriptions(); `n8n` is { n8n, rest, api } of the n8n running now.
 */
import fs from 'node:fs';
import path from 'node:path';

import type { JsonClient } from '../../scripts/jsonClient';
import { PACKAGE_NAME, type N8n } from '../../scripts/n8n';
import { pollUntil } from '../../scripts/proc';
import type { Sandbox } from './sandbox';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export const NODE_TYPE = `${PACKAGE_NAME}.appointments`;
export const TRIGGER_TYPE = `${PACKAGE_NAME}.appointmentsTrigger`;
export const POLLING_TYPE = `${PACKAGE_NAME}.appointmentsPollingTrigger`;
const HOOK_PATH = 'compat-installer-get-update';
const WEBHOOK_ID = 'a0000000-0000-4000-8000-0000000000ee';

export interface Running {
	n8n: N8n;
	/** n8n's REST API as the owner. */
	rest: JsonClient;
	/** n8n's public API with an API key. */
	api: JsonClient;
}

export async function installedList(rest: JsonClient): Promise<string[]> {
	// It runs `npm outdated` against the registry first (the update check), which takes a while.
	const list: Json[] = (await rest.ok('GET', '/rest/community-packages', { timeoutMs: 180_000 }))
		.data;
	return list.map((p) => `${p.packageName}@${p.installedVersion}`);
}

export async function ourNodeTypes(rest: JsonClient): Promise<string[]> {
	const types: Json[] = await rest.ok('GET', '/types/nodes.json');
	return [
		...new Set(types.map((t) => String(t.name)).filter((n) => n.startsWith(`${PACKAGE_NAME}.`))),
	].sort();
}

export function versionOnDisk(userFolder: string): string | undefined {
	const file = path.join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME, 'package.json');
	return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).version : undefined;
}

export class PackageWorkflows {
	credentialId?: string;
	getUpdate?: string;
	trigger?: string;
	private credential?: Json;

	constructor(
		private readonly sandbox: Sandbox,
		private readonly adminToken: string,
		private readonly apiToken: string,
	) {}

	async admin(method: string, p: string, body?: unknown): Promise<Json> {
		const r = await fetch(`${this.sandbox.url}${p}`, {
			method,
			headers: { authorization: `Bearer ${this.adminToken}`, 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		if (r.status >= 400) throw new Error(`${method} ${p} answered ${r.status}`);
		return await r.json();
	}

	async subscriptions(): Promise<Json[]> {
		const b = await this.admin('GET', '/__sandbox/webhooks/');
		return Array.isArray(b) ? b : (b.webhooks ?? b.results ?? []);
	}

	/** The credential (through the editor's REST call: n8n 1.x's public API asks for allowedDomains) and both workflows, published. */
	async setUp({ rest, api }: Running): Promise<void> {
		const data = { baseUrl: this.sandbox.url, accessToken: this.apiToken };
		const cred = (
			await rest.ok('POST', '/rest/credentials', {
				body: { name: 'Appointments API', type: 'appointmentsApi', data },
			})
		).data;
		this.credentialId = cred.id;
		this.credential = await this.credentialNow(rest);
		const credentials = { appointmentsApi: { id: cred.id, name: 'Appointments API' } };
		const getUpdate = await api.ok('POST', '/api/v1/workflows', {
			body: getUpdateWorkflow(credentials),
		});
		const trigger = await api.ok('POST', '/api/v1/workflows', {
			body: triggerWorkflow(credentials),
		});
		this.getUpdate = getUpdate.id;
		this.trigger = trigger.id;
		await api.ok('POST', `/api/v1/workflows/${getUpdate.id}/activate`);
		await api.ok('POST', `/api/v1/workflows/${trigger.id}/activate`);
	}

	/** Calls the webhook workflow with two CONFIRMED appointments: both come back ATTENDED, and are so in the service. */
	async runGetUpdate({ n8n }: Running): Promise<void> {
		for (let i = 0; i < 2; i++)
			await this.admin('POST', '/__sandbox/appointments/', { status: 'CONFIRMED' });
		// Right after publishing (or a start), n8n 2.x may not have registered the production webhook yet: 404 until it has.
		const r = await pollUntil('the webhook to answer', async () => {
			const res = await n8n.http.call('GET', `/webhook/${HOOK_PATH}`, { timeoutMs: 60_000 });
			return res.status === 404 ? undefined : res;
		});
		expect(r.status).toBe(200);
		const items: Json[] = Array.isArray(r.body) ? r.body : [r.body];
		expect(items).toHaveLength(2);
		for (const a of items) {
			expect(a.status).toBe('ATTENDED');
			expect(
				(await this.admin('GET', `/__sandbox/appointments/${a.appointment_key}/`)).status,
			).toBe('ATTENDED');
		}
	}

	/**
	 * Exactly one subscription for the trigger, and exactly one execution for one created appointment (once the
	 * service has delivered it and has nothing pending). Other executions are runGetUpdate()'s appointments.
	 */
	async triggerRunsOnce({ n8n, api }: Running): Promise<void> {
		const ours = async () =>
			(await this.subscriptions()).filter((s) => String(s.url).includes(`/webhook/${WEBHOOK_ID}/`));
		const subs = await pollUntil('the subscription', async () =>
			(await ours()).length ? await ours() : undefined,
		);
		expect(subs.map((s: Json) => s.url)).toEqual([`${n8n.url}/webhook/${WEBHOOK_ID}/webhook`]);
		const { appointment_key: key } = await this.admin('POST', '/__sandbox/appointments/', {
			status: 'CONFIRMED',
		});
		await pollUntil('the delivery', async () => {
			const d = await this.admin('GET', `/__sandbox/deliveries/?appointment_key=${key}`);
			if (
				d.pending === 0 &&
				d.deliveries.some((x: Json) => x.ok && x.event === 'appointment.created')
			)
				return true;
			throw new Error(`deliveries so far: ${JSON.stringify(d)}`);
		});
		const forKey = async () =>
			(
				(
					await api.ok(
						'GET',
						`/api/v1/executions?workflowId=${this.trigger}&includeData=true&limit=250`,
					)
				).data as Json[]
			).filter(
				(e) =>
					e.status !== 'running' &&
					e.finished !== undefined &&
					JSON.stringify(e.data?.resultData?.runData ?? {}).includes(key),
			);
		const runs = await pollUntil(
			'the trigger execution',
			async () => ((await forKey()).length ? await forKey() : undefined),
			{ timeoutMs: 60_000 },
		);
		expect(runs).toHaveLength(1);
		expect(runs[0].status).toBe('success');
	}

	async credentialUntouched({ rest }: Running): Promise<void> {
		expect(await this.credentialNow(rest)).toEqual(this.credential);
	}

	/** Both workflows still exist and are published. */
	async workflowsInPlace({ api }: Running): Promise<void> {
		for (const id of [this.getUpdate, this.trigger])
			expect((await api.ok('GET', `/api/v1/workflows/${id}`)).active).toBe(true);
	}

	private async credentialNow(rest: JsonClient): Promise<Json> {
		const c = ((await rest.ok('GET', '/rest/credentials')).data as Json[]).find(
			(x) => x.id === this.credentialId,
		);
		return { name: c.name, type: c.type, updatedAt: c.updatedAt };
	}
}

function getUpdateWorkflow(credentials: Json): Json {
	const key = '={{ $json.appointment_key }}';
	return {
		name: 'Installer: Get Many v1 then Update Status v2',
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'a0000000-0000-4000-8000-000000000001',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: 'a0000000-0000-4000-8000-0000000000ff',
				parameters: {
					path: HOOK_PATH,
					responseMode: 'lastNode',
					responseData: 'allEntries',
					options: {},
				},
			},
			{
				id: 'a0000000-0000-4000-8000-000000000002',
				name: 'Get Many v1',
				type: NODE_TYPE,
				typeVersion: 1,
				position: [200, 0],
				parameters: {
					resource: 'appointment',
					operation: 'getAll',
					returnAll: false,
					limit: 2,
					dateRange: 'all',
					filters: { status: 'CONFIRMED' },
					options: {},
				},
				credentials,
			},
			{
				id: 'a0000000-0000-4000-8000-000000000003',
				name: 'Update Status v2',
				type: NODE_TYPE,
				typeVersion: 2,
				position: [400, 0],
				parameters: {
					resource: 'appointment',
					operation: 'updateStatus',
					appointmentKey: { __rl: true, mode: 'id', value: key },
					status: 'ATTENDED',
					options: {},
				},
				credentials,
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Get Many v1', type: 'main', index: 0 }]] },
			'Get Many v1': { main: [[{ node: 'Update Status v2', type: 'main', index: 0 }]] },
		},
	};
}

function triggerWorkflow(credentials: Json): Json {
	return {
		name: 'Installer: trigger',
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'a0000000-0000-4000-8000-000000000004',
				name: 'On Created',
				type: TRIGGER_TYPE,
				typeVersion: 1,
				position: [0, 0],
				webhookId: WEBHOOK_ID,
				parameters: { events: ['appointment.created'], options: {} },
				credentials,
			},
		],
		connections: {},
	};
}
