/**
 * The install a user makes: Debian's chromium (playwright-core) in the real n8n 2.41.1 editor, Settings > Community
 * nodes > Install, the package name typed in the dialog, the risk box ticked, Install. n8n's installer fetches the
 * package from a local verdaccio (through the loopback proxy of test/helpers/registry.ts). The REST calls behind the
 * dialog, the update and the uninstall are covered on every n8n version by test/compat/installer.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { selectors, type Browser, type Page } from 'playwright-core';

import { launchBrowser, screenshot } from '../../scripts/browser';
import { ensureCert } from '../../scripts/cert';
import type { JsonClient } from '../../scripts/jsonClient';
import {
	buildAndPack,
	ensureN8nInstalled,
	loginRest,
	PACKAGE_NAME,
	startN8n,
	type N8n,
} from '../../scripts/n8n';
import { killAllOnSignals, pollUntil, stopAll } from '../../scripts/proc';
import { e2eUserFolder } from '../helpers/e2e';
import {
	n8nRegistryEnv,
	startRegistry,
	startRegistryProxy,
	writeNodesNpmrc,
	type Registry,
	type RegistryProxy,
} from '../helpers/registry';

const owner = {
	email: 'dialog@example.com',
	password: 'Dialog-Passw0rd',
	firstName: 'Dia',
	lastName: 'Log',
};
const log = (m: string) => process.stderr.write(`[e2e installer dialog] ${m}\n`);

let tmp: string;
let registry: Registry;
let proxy: RegistryProxy;
let n8n: N8n;
let rest: JsonClient;
let browser: Browser;
let page: Page;
let version: string;

beforeAll(async () => {
	killAllOnSignals();
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'appointments-dialog-'));
	ensureN8nInstalled(log);
	const cert = ensureCert();
	const tarball = buildAndPack(log);
	version = JSON.parse(
		fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'),
	).version;
	registry = await startRegistry(path.join(tmp, 'registry'));
	registry.publish(tarball);
	proxy = await startRegistryProxy(registry.port, tmp);
	const userFolder = e2eUserFolder('e2e-installer-dialog');
	writeNodesNpmrc(userFolder, proxy, tmp);
	n8n = await startN8n({ userFolder, cert, env: n8nRegistryEnv(proxy, tmp) });
	rest = await loginRest(n8n, owner); // sets the owner up
	selectors.setTestIdAttribute('data-test-id'); // n8n's test ids
	browser = await launchBrowser();
	const context = await browser.newContext({
		baseURL: n8n.url,
		ignoreHTTPSErrors: true,
		viewport: { width: 1440, height: 900 },
		locale: 'en-US',
	});
	page = await context.newPage();
}, 20 * 60_000);

afterAll(async () => {
	await browser?.close();
	await n8n?.stop();
	await proxy?.stop();
	await registry?.stop();
	await stopAll();
	if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

afterEach(async () => {
	// What the page showed last (where a failing step stopped), next to n8n's log.
	await page
		?.screenshot({ path: path.join(n8n.userFolder, 'last-page.png') })
		.catch(() => undefined);
});

test('Settings > Community nodes > Install: the dialog installs the package from the registry and n8n loads its nodes', async () => {
	await page.goto('/signin');
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(owner.email);
	await page.getByTestId('password').locator('input').fill(owner.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL(/\/(home|workflows)/);

	await page.goto('/settings/community-nodes');
	await page
		.getByTestId('empty-state')
		.getByRole('button', { name: 'Install a community node' })
		.click();
	const dialog = page.getByRole('dialog');
	await dialog.getByText('Install community nodes').waitFor();
	await dialog.getByRole('textbox').first().fill(PACKAGE_NAME);
	const install = dialog.getByRole('button', { name: 'Install', exact: true });
	expect(await install.isDisabled()).toBe(true); // until the risk box is ticked
	await dialog.getByRole('checkbox').first().check({ force: true });
	expect(await install.isDisabled()).toBe(false);
	await screenshot(page, 'installer-1-dialog');
	await install.click();

	// The dialog closes and the settings page lists the package with its version.
	await dialog.waitFor({ state: 'hidden', timeout: 180_000 });
	await page.getByText('Package installed').waitFor();
	await page.getByText(PACKAGE_NAME).first().waitFor();
	await page.getByText(`v${version}`).first().waitFor();
	await screenshot(page, 'installer-2-installed');

	const installed = (await rest.ok('GET', '/rest/community-packages', { timeoutMs: 180_000 })).data;
	expect(
		installed.map(
			(p: { packageName: string; installedVersion: string }) =>
				`${p.packageName}@${p.installedVersion}`,
		),
	).toEqual([`${PACKAGE_NAME}@${version}`]);
	expect(proxy.requests).toEqual(
		expect.arrayContaining([`GET /${PACKAGE_NAME}/-/${PACKAGE_NAME}-${version}.tgz 200`]),
	);
	// The editor's node list now has our nodes.
	const types = await pollUntil('our node types', async () => {
		const all: Array<{ name: string }> = await rest.ok('GET', '/types/nodes.json');
		const ours = all.filter((t) => t.name.startsWith(`${PACKAGE_NAME}.`));
		return ours.length ? ours : undefined;
	});
	expect(types.map((t) => t.name)).toEqual(
		expect.arrayContaining([
			`${PACKAGE_NAME}.appointments`,
			`${PACKAGE_NAME}.appointmentsTrigger`,
			`${PACKAGE_NAME}.appointmentsPollingTrigger`,
		]),
	);
});
