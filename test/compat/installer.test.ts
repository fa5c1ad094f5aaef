/**
 * The package installed the way users install it: published to a local npm registry (verdaccio) and installed by
 * n8n's own Community Nodes installer (the REST calls of Settings > Community Nodes: install, update, uninstall)
 * on one n8n version (N8N_DEV_VERSION; `npm run test:compat` runs every version). Then an update 0.x -> 0.x+1
 * with workflows in place (version 1 and 2 nodes, a published trigger), an update from a registry that is down
 * and to a version that does not exist (both fail with n8n's message and change nothing), and the uninstall.
 * How n8n is pointed at the local registry, and why not through N8N_COMMUNITY_PACKAGES_REGISTRY: test/helpers/registry.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ensureCert } from '../../scripts/cert';
import type { JsonClient } from '../../scripts/jsonClient';
import { buildAndPack, createApiKey, ensureN8nInstalled, loginRest, PACKAGE_NAME, publicApi, startN8n, type N8n } from '../../scripts/n8n';
import { N8N_VERSION } from '../../scripts/paths';
import { killAllOnSignals, pollUntil, stopAll } from '../../scripts/proc';
import { e2eUserFolder } from '../helpers/e2e';
import { n8nRegistryEnv, startRegistry, startRegistryProxy, withVersion, writeNodesNpmrc, type Registry, type RegistryProxy } from '../helpers/registry';
import { startTestSandbox, type Sandbox } from '../helpers/sandbox';

const NODE_TYPE = `${PACKAGE_NAME}.appointments`;
const TRIGGER_TYPE = `${PACKAGE_NAME}.appointmentsTrigger`;
const log = (m: string) => process.stderr.write(`[installer ${N8N_VERSION}] ${m}\n`);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const tokens = { token: 'installer-api-token-0123456789', admin: 'installer-admin-token-0123456789' };
let tmp: string;
let registry: Registry;
let proxy: RegistryProxy;
let sandbox: Sandbox;
let n8n: N8n;
let rest: JsonClient;
let api: JsonClient;
let tarball: string;
let v1: string; // the version published first, e.g. 0.1.0
let v2: string; // the same build as 0.1.1

beforeAll(async () => {
	killAllOnSignals();
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'appointments-registry-'));
	try {
		ensureN8nInstalled(log);
		const cert = ensureCert();
		tarball = buildAndPack(log);
		v1 = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')).version;
		const [major, minor, patch] = v1.split('.').map(Number);
		v2 = `${major}.${minor}.${patch + 1}`;
		registry = await startRegistry(path.join(tmp, 'registry'));
		registry.publish(tarball);
		proxy = await startRegistryProxy(registry.port, tmp);
		sandbox = await startTestSandbox(tokens, { seed: 20, ca: cert.cert });
		const userFolder = e2eUserFolder(`installer-${N8N_VERSION}`);
		writeNodesNpmrc(userFolder, proxy, tmp);
		n8n = await startN8n({ userFolder, cert, env: n8nRegistryEnv(proxy, tmp) });
		rest = await loginRest(n8n, { email: 'installer@example.com', password: 'Installer-Passw0rd', firstName: 'Inst', lastName: 'Aller' });
		api = publicApi(n8n, (await createApiKey(rest, 'installer')).key);
	} catch (e) {
		log(`ERROR: could not set up the registry, the sandbox or n8n:\n${(e as Error).message}`);
		throw e;
	}
}, 20 * 60_000);

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.close();
	await proxy?.stop();
	await registry?.stop();
	await stopAll();
	if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function admin(method: string, p: string, body?: unknown): Promise<Json> {
	const r = await fetch(`${sandbox.url}${p}`, {
		method,
		headers: { authorization: `Bearer ${tokens.admin}`, 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (r.status >= 400) throw new Error(`${method} ${p} answered ${r.status}`);
	return await r.json();
}

async function subscriptions(): Promise<Json[]> {
	const b = await admin('GET', '/__sandbox/webhooks/');
	return Array.isArray(b) ? b : (b.webhooks ?? b.results ?? []);
}

/** What Settings > Community Nodes lists. */
async function installed(): Promise<Json[]> {
	// It runs `npm outdated` against the registry first (the update check), which takes a while.
	return (await rest.ok('GET', '/rest/community-packages', { timeoutMs: 180_000 })).data;
}

/** The version in the package.json of what n8n installed in its nodes folder (undefined when absent). */
function versionOnDisk(): string | undefined {
	const file = path.join(n8n.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME, 'package.json');
	return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).version : undefined;
}

const state: { credentialId?: string; credential?: Json; getUpdate?: string; trigger?: string; webhookId?: string } = {};

/** The webhook-called workflow: Get Many (node version 1) -> Update Status (node version 2); answers the updated items. */
async function runGetUpdate(): Promise<void> {
	for (let i = 0; i < 2; i++) await admin('POST', '/__sandbox/appointments/', { status: 'CONFIRMED' });
	// Right after publishing, n8n 2.x may not have registered the production webhook yet: 404 until it has.
	const r = await pollUntil('the webhook to answer', async () => {
		const res = await n8n.http.call('GET', '/webhook/compat-installer-get-update', { timeoutMs: 60_000 });
		return res.status === 404 ? undefined : res;
	});
	expect(r.status).toBe(200);
	const items: Json[] = Array.isArray(r.body) ? r.body : [r.body];
	expect(items).toHaveLength(2);
	for (const a of items) {
		expect(a.status).toBe('ATTENDED');
		expect((await admin('GET', `/__sandbox/appointments/${a.appointment_key}/`)).status).toBe('ATTENDED');
	}
}

/**
 * Exactly one subscription for the trigger, and exactly one execution for one created appointment (once the
 * service has delivered it and has nothing pending). Other executions are runGetUpdate()'s appointments.
 */
async function triggerRunsOnce(): Promise<void> {
	const ours = async () => (await subscriptions()).filter((s) => String(s.url).includes(`/webhook/${state.webhookId}/`));
	expect(await pollUntil('the subscription', async () => ((await ours()).length ? await ours() : undefined))).toHaveLength(1);
	const { appointment_key: key } = await admin('POST', '/__sandbox/appointments/', { status: 'CONFIRMED' });
	await pollUntil('the delivery', async () => {
		const d = await admin('GET', `/__sandbox/deliveries/?appointment_key=${key}`);
		return d.pending === 0 && d.deliveries.some((x: Json) => x.ok && x.event === 'appointment.created') ? true : undefined;
	});
	const forKey = async () =>
		((await api.ok('GET', `/api/v1/executions?workflowId=${state.trigger}&includeData=true&limit=250`)).data as Json[]).filter(
			(e) => e.status !== 'running' && e.finished !== undefined && JSON.stringify(e.data?.resultData?.runData ?? {}).includes(key),
		);
	const runs = await pollUntil('the trigger execution', async () => ((await forKey()).length ? await forKey() : undefined), { timeoutMs: 60_000 });
	expect(runs).toHaveLength(1);
	expect(runs[0].status).toBe('success');
}

async function credentialUntouched(): Promise<void> {
	const list: Json[] = (await rest.ok('GET', '/rest/credentials')).data;
	const now = list.find((c) => c.id === state.credentialId);
	expect({ name: now.name, type: now.type, updatedAt: now.updatedAt }).toEqual(state.credential);
}

describe(`Community Nodes installer on n8n ${N8N_VERSION}`, () => {
	test('installs the package from the registry and loads its nodes', async () => {
		expect(await installed()).toEqual([]);
		const r = await rest.call('POST', '/rest/community-packages', { body: { name: PACKAGE_NAME }, timeoutMs: 180_000 });
		if (r.status !== 200) throw new Error(`install answered ${r.status}: ${r.text.slice(0, 1000)}`);
		expect(r.body.data.packageName).toBe(PACKAGE_NAME);
		expect(r.body.data.installedVersion).toBe(v1);
		expect(r.body.data.installedNodes.map((n: Json) => n.type).sort()).toEqual(
			[NODE_TYPE, `${PACKAGE_NAME}.appointmentsPollingTrigger`, TRIGGER_TYPE].sort(),
		);
		expect(versionOnDisk()).toBe(v1);
		// npm fetched the package from our registry, through the proxy.
		expect(proxy.requests).toEqual(expect.arrayContaining([`GET /${PACKAGE_NAME}/-/${PACKAGE_NAME}-${v1}.tgz 200`]));
		expect((await installed()).map((p) => `${p.packageName}@${p.installedVersion}`)).toEqual([`${PACKAGE_NAME}@${v1}`]);
	});

	test('workflows with version 1 and 2 nodes and a published trigger run on it', async () => {
		// Through the editor's REST call: n8n 1.x's public API asks every credential for an allowedDomains field.
		const cred = (
			await rest.ok('POST', '/rest/credentials', {
				body: { name: 'Appointments API', type: 'appointmentsApi', data: { baseUrl: sandbox.url, accessToken: tokens.token } },
			})
		).data;
		state.credentialId = cred.id;
		const list: Json[] = (await rest.ok('GET', '/rest/credentials')).data;
		const c = list.find((x) => x.id === cred.id);
		state.credential = { name: c.name, type: c.type, updatedAt: c.updatedAt };
		const credentials = { appointmentsApi: { id: cred.id, name: 'Appointments API' } };
		const key = '={{ $json.appointment_key }}';
		const getUpdate = await api.ok('POST', '/api/v1/workflows', {
			body: {
				name: 'Installer: Get Many v1 then Update Status v2',
				settings: { executionOrder: 'v1' },
				nodes: [
					{ id: 'a0000000-0000-4000-8000-000000000001', name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: 'a0000000-0000-4000-8000-0000000000ff', parameters: { path: 'compat-installer-get-update', responseMode: 'lastNode', responseData: 'allEntries', options: {} } },
					{ id: 'a0000000-0000-4000-8000-000000000002', name: 'Get Many v1', type: NODE_TYPE, typeVersion: 1, position: [200, 0], parameters: { resource: 'appointment', operation: 'getAll', returnAll: false, limit: 2, dateRange: 'all', filters: { status: 'CONFIRMED' }, options: {} }, credentials },
					{ id: 'a0000000-0000-4000-8000-000000000003', name: 'Update Status v2', type: NODE_TYPE, typeVersion: 2, position: [400, 0], parameters: { resource: 'appointment', operation: 'updateStatus', appointmentKey: { __rl: true, mode: 'id', value: key }, status: 'ATTENDED', options: {} }, credentials },
				],
				connections: {
					Webhook: { main: [[{ node: 'Get Many v1', type: 'main', index: 0 }]] },
					'Get Many v1': { main: [[{ node: 'Update Status v2', type: 'main', index: 0 }]] },
				},
			},
		});
		state.webhookId = 'a0000000-0000-4000-8000-0000000000ee';
		const trigger = await api.ok('POST', '/api/v1/workflows', {
			body: {
				name: 'Installer: trigger',
				settings: { executionOrder: 'v1' },
				nodes: [{ id: 'a0000000-0000-4000-8000-000000000004', name: 'On Created', type: TRIGGER_TYPE, typeVersion: 1, position: [0, 0], webhookId: state.webhookId, parameters: { events: ['appointment.created'], options: {} }, credentials }],
				connections: {},
			},
		});
		state.getUpdate = getUpdate.id;
		state.trigger = trigger.id;
		await api.ok('POST', `/api/v1/workflows/${getUpdate.id}/activate`);
		await api.ok('POST', `/api/v1/workflows/${trigger.id}/activate`);
		await runGetUpdate();
		await triggerRunsOnce();
	});

	test(`update to the next version through the installer: workflows keep running, one subscription, credential untouched`, async () => {
		registry.publish(withVersion(tarball, tmp, v2));
		// The list shows the update (what makes the dialog offer it).
		expect((await installed())[0].updateAvailable).toBe(v2);
		const r = await rest.call('PATCH', '/rest/community-packages', { body: { name: PACKAGE_NAME }, timeoutMs: 180_000 });
		if (r.status !== 200) throw new Error(`update answered ${r.status}: ${r.text.slice(0, 1000)}`);
		expect(r.body.data.installedVersion).toBe(v2);
		expect(versionOnDisk()).toBe(v2);
		expect((await installed()).map((p) => `${p.packageName}@${p.installedVersion}`)).toEqual([`${PACKAGE_NAME}@${v2}`]);
		await runGetUpdate();
		await triggerRunsOnce();
		await credentialUntouched();
	});

	test('an update from a registry that is down fails with n8n\'s message and changes nothing', async () => {
		await registry.stop();
		try {
			const r = await rest.call('PATCH', '/rest/community-packages', { body: { name: PACKAGE_NAME }, timeoutMs: 180_000 });
			log(`update with the registry down: ${r.status} ${r.body?.message}`);
			expect(r.status).toBeGreaterThanOrEqual(400);
			expect(String(r.body.message)).toMatch(/\S/);
		} finally {
			await registry.restart();
		}
		expect(versionOnDisk()).toBe(v2);
		expect((await installed()).map((p) => `${p.packageName}@${p.installedVersion}`)).toEqual([`${PACKAGE_NAME}@${v2}`]);
		await runGetUpdate();
		await triggerRunsOnce();
	});

	test('an update to a version that does not exist fails with n8n\'s message and changes nothing', async () => {
		const r = await rest.call('PATCH', '/rest/community-packages', { body: { name: PACKAGE_NAME, version: '9.9.9' }, timeoutMs: 180_000 });
		log(`update to 9.9.9: ${r.status} ${r.body?.message}`);
		expect(r.status).toBeGreaterThanOrEqual(400);
		expect(String(r.body.message)).toMatch(/not found|does not exist|9\.9\.9/i);
		expect(versionOnDisk()).toBe(v2);
		expect((await installed()).map((p) => `${p.packageName}@${p.installedVersion}`)).toEqual([`${PACKAGE_NAME}@${v2}`]);
		await runGetUpdate();
		await triggerRunsOnce();
	});

	test('uninstall: unpublished workflows leave nothing subscribed, n8n reports the package gone', async () => {
		await api.ok('POST', `/api/v1/workflows/${state.trigger}/deactivate`);
		await api.ok('POST', `/api/v1/workflows/${state.getUpdate}/deactivate`);
		await pollUntil('no subscription left', async () => ((await subscriptions()).length === 0 ? true : undefined));
		const r = await rest.call('DELETE', `/rest/community-packages?name=${PACKAGE_NAME}`, { timeoutMs: 120_000 });
		if (r.status !== 200) throw new Error(`uninstall answered ${r.status}: ${r.text.slice(0, 1000)}`);
		expect(await installed()).toEqual([]);
		expect(versionOnDisk()).toBeUndefined();
		const types: Json[] = await rest.ok('GET', '/types/nodes.json');
		expect(types.filter((t) => String(t.name).startsWith(`${PACKAGE_NAME}.`))).toEqual([]);
		expect(await subscriptions()).toEqual([]);
	});
});
