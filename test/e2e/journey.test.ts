/**
 * A builder's first ten minutes after `npm run dev`, in Debian's chromium (playwright-core) against the real n8n
 * 2.41.1 of the e2e stack and the sandbox: signed in to n8n, open the imported "Appointments API" credential and see
 * its test pass, open the morning agenda example and press "Execute workflow", then sign in to the service's
 * dashboard and find the agenda email on its Mailbox page; then every example opens in the editor. With
 * UPDATE_SCREENSHOTS=1 it saves the credential, the executed workflow and the email as docs/screenshots/journey-*.png
 * and each example's canvas as docs/screenshots/example-*.png (the README shows them).
 */
import { DateTime } from 'luxon';
import type { Browser, BrowserContext, Page } from 'playwright-core';

import { screenshot } from '../../scripts/browser';
import { WORKFLOW_LIST } from '../../scripts/devSession';
import { closeEditor, openEditor, settled, TZ } from '../helpers/e2e';
import type { Stack } from '../../scripts/stack';

const owner = {
	email: 'builder@example.com',
	password: 'Builder-Passw0rd',
	firstName: 'Bea',
	lastName: 'Builder',
};

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
	({ stack, browser, context, page } = await openEditor('e2e-journey', owner));
}, 20 * 60_000);

afterAll(closeEditor);

test('the n8n address `npm run dev` prints opens, once signed in, the workflow list (not the Assistant)', async () => {
	const fresh = await browser.newContext({ baseURL: stack.n8n.url, ignoreHTTPSErrors: true });
	try {
		const signIn = await fresh.newPage();
		await signIn.goto(WORKFLOW_LIST);
		await signIn.getByTestId('emailOrLdapLoginId').locator('input').fill(owner.email);
		await signIn.getByTestId('password').locator('input').fill(owner.password);
		await signIn.getByTestId('form-submit-button').click();
		await signIn
			.getByTestId('resources-list-item-workflow')
			.filter({ hasText: 'Appointments: morning agenda by email' })
			.waitFor({ timeout: 120_000 });
		expect(new URL(signIn.url()).pathname).toBe(WORKFLOW_LIST);
	} finally {
		await fresh.close();
	}
});

test('the imported "Appointments API" credential: its test passes', async () => {
	await stack.admin.ok('DELETE', '/__sandbox/requests/');
	await page.goto('/home/credentials');
	await page
		.getByTestId('resources-list-item')
		.filter({ hasText: 'Appointments API' })
		.first()
		.click();
	const modal = page.getByTestId('editCredential-modal');
	await modal.waitFor();
	// n8n tests a saved credential when it is opened; "Retry" runs the test again.
	const passed = modal.getByText('Connection tested successfully');
	if (!(await passed.isVisible())) {
		const retry = modal.getByRole('button', { name: /retry/i });
		if (await retry.isVisible()) await retry.click();
	}
	await passed.waitFor({ timeout: 30000 });
	await settled(page);
	await screenshot(page, 'journey-1-credential-tested');
	// Really answered by the service with the token: the credential test's request.
	const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
	expect(requests.map((r: any) => `${r.method} ${r.path} ${r.status} ${r.authorized}`)).toContain(
		'GET /api/v3/webhooks/ 200 true',
	);
	await page.keyboard.press('Escape');
	await modal.waitFor({ state: 'hidden' });
});

test("the morning agenda example: Execute workflow, and the email is in the dashboard's Mailbox", async () => {
	await stack.admin.ok('DELETE', '/__sandbox/mailbox/');
	await page.goto('/workflow/apptDailyReport');
	await page.getByText('Every Day at 07:00').first().waitFor();
	await page.getByTestId('execute-workflow-button').click();
	await page.getByText('Workflow executed successfully').waitFor({ timeout: 60000 });
	await settled(page);
	await screenshot(page, 'journey-2-morning-agenda');

	const dashboard = await context.newPage();
	await dashboard.goto(`${stack.sandboxUrl}/dashboard/`);
	await dashboard.getByLabel('Admin token').fill(stack.adminToken);
	await dashboard.getByRole('button', { name: 'Sign in' }).click();
	await dashboard
		.getByRole('navigation', { name: 'Main' })
		.getByRole('link', { name: 'Mailbox' })
		.click();
	const today = DateTime.now().setZone(TZ).toFormat('cccc d LLLL');
	const row = dashboard.getByRole('row', {
		name: new RegExp(`\\[Example 1\\] Today's appointments: \\d+ \\(${today}\\)`),
	});
	await row.waitFor();
	expect(await row.count()).toBe(1);
	expect(await row.textContent()).toMatch(/bookings@example\.com[\s\S]*front-desk@example\.com/);
	await row.getByRole('link').first().click();
	expect(await dashboard.getByLabel('Text of the email').textContent()).toContain(
		`Good morning! Here is the agenda for ${today}.`,
	);
	await screenshot(dashboard, 'journey-3-agenda-email');
	await dashboard.close();
});

test('every example opens in the editor with its sticky notes and every node known to n8n', async () => {
	const known: any[] = await stack.rest.ok('GET', '/types/nodes.json');
	const isKnown = (n: any) =>
		known.some((t) => t.name === n.type && [t.version].flat().includes(n.typeVersion));
	for (const ex of stack.examples) {
		expect(
			ex.json.nodes
				.filter((n: any) => !isKnown(n))
				.map((n: any) => `${n.name} (${n.type} ${n.typeVersion})`),
		).toEqual([]);
		await page.goto(`/workflow/${ex.id}`);
		const notes = ex.json.nodes.filter((n: any) => n.type === 'n8n-nodes-base.stickyNote');
		const title = String(notes[0].parameters.content)
			.split('\n')[0]
			.replace(/^#+\s*/, '');
		await page.getByRole('heading', { name: title }).waitFor();
		for (const n of ex.json.nodes.filter((x: any) => x.type !== 'n8n-nodes-base.stickyNote')) {
			const node = page.getByTestId('canvas-node').filter({ hasText: n.name });
			await node.first().waitFor();
		}
		// Node icons are images: on a busy machine the canvas can be drawn before they have loaded.
		await page.waitForFunction(
			`[...document.querySelectorAll('[data-test-id="canvas-node"] img')].every((i) => i.complete && i.naturalWidth > 0)`,
		);
		await settled(page);
		await screenshot(page, `example-${ex.file.replace(/\.json$/, '')}`);
	}
});
