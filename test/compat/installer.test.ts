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
import {
	buildAndPack,
	createApiKey,
	ensureN8nInstalled,
	loginRest,
	PACKAGE_NAME,
	publicApi,
	startN8n,
	type N8n,
} from '../../scripts/n8n';
import { N8N_VERSION } from '../../scripts/paths';
import { killAllOnSignals, pollUntil, stopAll } from '../../scripts/proc';
import { e2eUserFolder } from '../helpers/e2e';
import {
	installedList,
	NODE_TYPE,
	ourNodeTypes,
	PackageWorkflows,
	POLLING_TYPE,
	TRIGGER_TYPE,
	versionOnDisk,
	type Running,
} from '../helpers/installedPackage';
import {
	n8nRegistryEnv,
	startRegistry,
	startRegistryProxy,
	withVersion,
	writeNodesNpmrc,
	type Registry,
	type RegistryProxy,
} from '../helpers/registry';
import { startTestSandbox, type Sandbox } from '../helpers/sandbox';

const log = (m: string) => process.stderr.write(`[installer ${N8N_VERSION}] ${m}\n`);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const tokens = {
	token: 'installer-api-token-0123456789',
	admin: 'installer-admin-token-0123456789',
};
let tmp: string;
let registry: Registry;
let proxy: RegistryProxy;
let sandbox: Sandbox;
let n8n: N8n;
let rest: JsonClient;
let api: JsonClient;
let workflows: PackageWorkflows;
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
		v1 = JSON.parse(
			fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'),
		).version;
		const [major, minor, patch] = v1.split('.').map(Number);
		v2 = `${major}.${minor}.${patch + 1}`;
		registry = await startRegistry(path.join(tmp, 'registry'));
		registry.publish(tarball);
		proxy = await startRegistryProxy(registry.port, tmp);
		sandbox = await startTestSandbox(tokens, { seed: 20, ca: cert.cert });
		workflows = new PackageWorkflows(sandbox, tokens.admin, tokens.token);
		const userFolder = e2eUserFolder(`installer-${N8N_VERSION}`);
		writeNodesNpmrc(userFolder, proxy, tmp);
		n8n = await startN8n({ userFolder, cert, env: n8nRegistryEnv(proxy, tmp) });
		rest = await loginRest(n8n, {
			email: 'installer@example.com',
			password: 'Installer-Passw0rd',
			firstName: 'Inst',
			lastName: 'Aller',
		});
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

const running = (): Running => ({ n8n, rest, api });

describe(`Community Nodes installer on n8n ${N8N_VERSION}`, () => {
	test('installs the package from the registry and loads its nodes', async () => {
		expect(await installedList(rest)).toEqual([]);
		const r = await rest.call('POST', '/rest/community-packages', {
			body: { name: PACKAGE_NAME },
			timeoutMs: 180_000,
		});
		if (r.status !== 200) throw new Error(`install answered ${r.status}: ${r.text.slice(0, 1000)}`);
		expect(r.body.data.packageName).toBe(PACKAGE_NAME);
		expect(r.body.data.installedVersion).toBe(v1);
		expect(r.body.data.installedNodes.map((n: Json) => n.type).sort()).toEqual(
			[NODE_TYPE, POLLING_TYPE, TRIGGER_TYPE].sort(),
		);
		expect(versionOnDisk(n8n.userFolder)).toBe(v1);
		// npm fetched the package from our registry, through the proxy.
		expect(proxy.requests).toEqual(
			expect.arrayContaining([`GET /${PACKAGE_NAME}/-/${PACKAGE_NAME}-${v1}.tgz 200`]),
		);
		expect(await installedList(rest)).toEqual([`${PACKAGE_NAME}@${v1}`]);
	});

	test('workflows with version 1 and 2 nodes and a published trigger run on it', async () => {
		await workflows.setUp(running());
		await workflows.runGetUpdate(running());
		await workflows.triggerRunsOnce(running());
	});

	test(`update to the next version through the installer: workflows keep running, one subscription, credential untouched`, async () => {
		registry.publish(withVersion(tarball, tmp, v2));
		// The list shows the update (what makes the dialog offer it).
		const listed: Json[] = (
			await rest.ok('GET', '/rest/community-packages', { timeoutMs: 180_000 })
		).data;
		expect(listed[0].updateAvailable).toBe(v2);
		const r = await rest.call('PATCH', '/rest/community-packages', {
			body: { name: PACKAGE_NAME },
			timeoutMs: 180_000,
		});
		if (r.status !== 200) throw new Error(`update answered ${r.status}: ${r.text.slice(0, 1000)}`);
		expect(r.body.data.installedVersion).toBe(v2);
		expect(versionOnDisk(n8n.userFolder)).toBe(v2);
		expect(await installedList(rest)).toEqual([`${PACKAGE_NAME}@${v2}`]);
		await workflows.runGetUpdate(running());
		await workflows.triggerRunsOnce(running());
		await workflows.credentialUntouched(running());
	});

	test("an update from a registry that is down fails with n8n's message and changes nothing", async () => {
		await registry.stop();
		try {
			const r = await rest.call('PATCH', '/rest/community-packages', {
				body: { name: PACKAGE_NAME },
				timeoutMs: 180_000,
			});
			log(`update with the registry down: ${r.status} ${r.body?.message}`);
			expect(r.status).toBeGreaterThanOrEqual(400);
			expect(String(r.body.message)).toMatch(/\S/);
		} finally {
			await registry.restart();
		}
		expect(versionOnDisk(n8n.userFolder)).toBe(v2);
		expect(await installedList(rest)).toEqual([`${PACKAGE_NAME}@${v2}`]);
		await workflows.runGetUpdate(running());
		await workflows.triggerRunsOnce(running());
	});

	test("an update to a version that does not exist fails with n8n's message and changes nothing", async () => {
		const r = await rest.call('PATCH', '/rest/community-packages', {
			body: { name: PACKAGE_NAME, version: '9.9.9' },
			timeoutMs: 180_000,
		});
		log(`update to 9.9.9: ${r.status} ${r.body?.message}`);
		expect(r.status).toBeGreaterThanOrEqual(400);
		expect(String(r.body.message)).toMatch(/not found|does not exist|9\.9\.9/i);
		expect(versionOnDisk(n8n.userFolder)).toBe(v2);
		expect(await installedList(rest)).toEqual([`${PACKAGE_NAME}@${v2}`]);
		await workflows.runGetUpdate(running());
		await workflows.triggerRunsOnce(running());
	});

	test('uninstall: unpublished workflows leave nothing subscribed, n8n reports the package gone', async () => {
		await api.ok('POST', `/api/v1/workflows/${workflows.trigger}/deactivate`);
		await api.ok('POST', `/api/v1/workflows/${workflows.getUpdate}/deactivate`);
		await pollUntil('no subscription left', async () =>
			(await workflows.subscriptions()).length === 0 ? true : undefined,
		);
		const r = await rest.call('DELETE', `/rest/community-packages?name=${PACKAGE_NAME}`, {
			timeoutMs: 120_000,
		});
		if (r.status !== 200)
			throw new Error(`uninstall answered ${r.status}: ${r.text.slice(0, 1000)}`);
		expect(await installedList(rest)).toEqual([]);
		expect(versionOnDisk(n8n.userFolder)).toBeUndefined();
		expect(await ourNodeTypes(rest)).toEqual([]);
		expect(await workflows.subscriptions()).toEqual([]);
	});
});
