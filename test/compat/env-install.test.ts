/**
 * The package installed the way managed deployments and n8n 3.0 install it: listed in N8N_COMMUNITY_PACKAGES with
 * its version and sha512 checksum, with N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV=true and unverified packages off
 * (N8N_UNVERIFIED_PACKAGES_ENABLED=false, n8n 3.0's default), from the local registry of installer.test.ts.
 * One user folder, four starts of n8n: without a checksum n8n refuses to start; with a wrong checksum it starts but
 * refuses the package (nothing of ours is loaded); with the right one it installs it on start, its nodes load and a
 * published trigger subscribes once; with the list changed to the next version and its checksum, a restart
 * upgrades it with the workflows in place (one subscription, one run per event).
 * The checksums are computed by the release workflow's own step (scripts/release-checksum.mjs pack), so this also
 * shows that the value the release notes print is the one n8n accepts.
 * An n8n that does not read N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV (1.x; n8n's docs: from 2.21) skips it, saying so.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ensureCert, type DevCert } from '../../scripts/cert';
import { n8nReadsVariable } from '../../scripts/install';
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
import { N8N_VERSION, ROOT } from '../../scripts/paths';
import { freePort, killAllOnSignals, stopAll } from '../../scripts/proc';
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

const log = (m: string) => process.stderr.write(`[env-install ${N8N_VERSION}] ${m}\n`);
const FEATURE = 'N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV';
ensureN8nInstalled(log);
const supported = n8nReadsVariable(FEATURE);
if (!supported)
	log(
		`SKIPPED: n8n ${N8N_VERSION} does not read ${FEATURE} (no such variable in its code; n8n reads it from 2.21 on): docs/compatibility.md`,
	);

const OWNER = {
	email: 'env-install@example.com',
	password: 'Env-Install-Passw0rd',
	firstName: 'Env',
	lastName: 'Install',
};
const tokens = {
	token: 'env-install-api-token-0123456789',
	admin: 'env-install-admin-token-0123456789',
};
interface Pin {
	name: string;
	version: string;
	checksum?: string;
}
interface Packed {
	version: string;
	tarball: string;
	integrity: string;
}

let tmp: string;
let cert: DevCert;
let registry: Registry;
let proxy: RegistryProxy;
let sandbox: Sandbox;
let userFolder: string;
/** One port for every start, as a deployment keeps its address: the trigger's subscription names it. */
let port: number;
let workflows: PackageWorkflows;
let apiKey: string | undefined;
let v1: Packed;
let v2: Packed;
let now: Running | undefined;

/** The release workflow's pack step (on the built package, or on `folder`): the tarball and its integrity. */
function releasePack(dir: string, folder?: string): { tarball: string; integrity: string } {
	const r = spawnSync(
		process.execPath,
		[path.join(ROOT, 'scripts', 'release-checksum.mjs'), 'pack', dir, ...(folder ? [folder] : [])],
		{ encoding: 'utf8' },
	);
	if (r.status !== 0) throw new Error(`release-checksum.mjs pack failed: ${r.stderr}`);
	const out = Object.fromEntries(
		r.stdout
			.trim()
			.split('\n')
			.map((l) => l.split(/=(.*)/s).slice(0, 2)),
	);
	return { tarball: out.tarball, integrity: out.integrity };
}

/** Starts n8n managing its community packages from `pins`; signs in (the owner on the first start). */
async function startManaged(pins: Pin[]): Promise<Running> {
	const t0 = Date.now();
	const n8n: N8n = await startN8n({
		userFolder,
		port,
		cert,
		env: {
			...n8nRegistryEnv(proxy, tmp),
			N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV: 'true',
			N8N_UNVERIFIED_PACKAGES_ENABLED: 'false',
			N8N_COMMUNITY_PACKAGES: JSON.stringify(pins),
		},
	});
	log(
		`n8n started with ${JSON.stringify(pins.map((p) => `${p.name}@${p.version}`))} in ${Math.round((Date.now() - t0) / 1000)} s`,
	);
	const rest = await loginRest(n8n, OWNER);
	apiKey ??= (await createApiKey(rest, 'env-install')).key;
	return (now = { n8n, rest, api: publicApi(n8n, apiKey) });
}

async function stopN8n(): Promise<void> {
	await now?.n8n.stop();
	now = undefined;
}

const pin = (p: Packed, checksum: string | undefined = p.integrity): Pin => ({
	name: PACKAGE_NAME,
	version: p.version,
	...(checksum ? { checksum } : {}),
});
const logOf = (n8n: N8n) => fs.readFileSync(n8n.logFile, 'utf8');

beforeAll(async () => {
	if (!supported) return;
	killAllOnSignals();
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'appointments-env-install-'));
	try {
		cert = ensureCert();
		buildAndPack(log);
		const version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
		const [major, minor, patch] = version.split('.').map(Number);
		v1 = { version, ...releasePack(path.join(tmp, 'v1')) };
		const next = `${major}.${minor}.${patch + 1}`;
		v2 = {
			version: next,
			...releasePack(path.join(tmp, 'v2'), withVersion(v1.tarball, tmp, next)),
		};
		registry = await startRegistry(path.join(tmp, 'registry'));
		registry.publish(v1.tarball);
		registry.publish(v2.tarball);
		proxy = await startRegistryProxy(registry.port, tmp);
		sandbox = await startTestSandbox(tokens, { seed: 20, ca: cert.cert });
		workflows = new PackageWorkflows(sandbox, tokens.admin, tokens.token);
		userFolder = e2eUserFolder(`env-install-${N8N_VERSION}`);
		port = await freePort();
		writeNodesNpmrc(userFolder, proxy, tmp);
	} catch (e) {
		log(`ERROR: could not set up the registry or the sandbox:\n${(e as Error).message}`);
		throw e;
	}
}, 20 * 60_000);

afterAll(async () => {
	await stopN8n();
	await sandbox?.close();
	await proxy?.stop();
	await registry?.stop();
	await stopAll();
	if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

const tarballRequest = (p: Packed) => `GET /${PACKAGE_NAME}/-/${PACKAGE_NAME}-${p.version}.tgz 200`;

(supported ? describe : describe.skip)(
	`N8N_COMMUNITY_PACKAGES on n8n ${N8N_VERSION} (unverified packages off)`,
	() => {
		test('without a checksum n8n refuses to start, naming the package', async () => {
			const start = startManaged([pin(v1, '')]);
			await expect(start).rejects.toThrow(
				`N8N_COMMUNITY_PACKAGES: no checksum available for '${PACKAGE_NAME}@${v1.version}' and unverified packages are disabled`,
			);
		});

		test('with a wrong checksum n8n refuses the package: nothing of ours is downloaded, installed or loaded', async () => {
			const { n8n, rest } = await startManaged([pin(v1, v2.integrity)]);
			expect(logOf(n8n)).toMatch(
				new RegExp(
					`Failed to install community package '${PACKAGE_NAME}@${v1.version.replace(/\./g, '\\.')}' from env: .*checksum`,
					'i',
				),
			);
			expect(await installedList(rest)).toEqual([]);
			expect(await ourNodeTypes(rest)).toEqual([]);
			expect(versionOnDisk(userFolder)).toBeUndefined();
			expect(proxy.requests.filter((r) => r.includes('.tgz'))).toEqual([]);
			await stopN8n();
		});

		test('with its checksum the package is installed on start, its nodes load, a published trigger subscribes once', async () => {
			const running = await startManaged([pin(v1)]);
			expect(await installedList(running.rest)).toEqual([`${PACKAGE_NAME}@${v1.version}`]);
			expect(await ourNodeTypes(running.rest)).toEqual(
				expect.arrayContaining([NODE_TYPE, POLLING_TYPE, TRIGGER_TYPE]),
			);
			expect(versionOnDisk(userFolder)).toBe(v1.version);
			expect(proxy.requests).toContain(tarballRequest(v1));
			// The list is read-only while the environment manages it: updates go through N8N_COMMUNITY_PACKAGES.
			const update = await running.rest.call('PATCH', '/rest/community-packages', {
				body: { name: PACKAGE_NAME },
				timeoutMs: 60_000,
			});
			expect({ status: update.status, message: update.body?.message }).toEqual({
				status: 400,
				message: expect.stringMatching(/managed via environment variables/),
			});
			await workflows.setUp(running);
			await workflows.runGetUpdate(running);
			await workflows.triggerRunsOnce(running);
			await stopN8n();
		});

		test('the list changed to the next version and n8n restarted: upgraded, workflows in place, one subscription, one run per event', async () => {
			const running = await startManaged([pin(v2)]);
			expect(await installedList(running.rest)).toEqual([`${PACKAGE_NAME}@${v2.version}`]);
			expect(versionOnDisk(userFolder)).toBe(v2.version);
			expect(proxy.requests).toContain(tarballRequest(v2));
			expect(logOf(running.n8n)).toContain(
				`Updated community package '${PACKAGE_NAME}' from ${v1.version} to ${v2.version} from env`,
			);
			expect(await ourNodeTypes(running.rest)).toEqual(
				expect.arrayContaining([NODE_TYPE, POLLING_TYPE, TRIGGER_TYPE]),
			);
			await workflows.workflowsInPlace(running);
			await workflows.runGetUpdate(running);
			await workflows.triggerRunsOnce(running);
			await workflows.credentialUntouched(running);
		});
	},
);
