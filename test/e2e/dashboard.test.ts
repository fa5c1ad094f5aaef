/**
 * Acceptance through the browser, as a new user would after `npm run dev`: sign in to the sandbox's dashboard, find
 * the published trigger's subscription under Settings › Integrations › Webhooks, create an appointment in the
 * dashboard, and the n8n workflow runs; its delivery shows under Deliveries with n8n's 200. n8n's Send Email node
 * with the imported "Local mail sink" credential puts its email in the dashboard's Mailbox.
 */
import type { Browser, Page } from 'playwright-core';

import { launchBrowser } from '../../scripts/browser';
import { nodeOutput } from '../../scripts/n8nCli';
import { startE2EStack } from '../helpers/e2e';
import { waitForMail } from '../helpers/sandbox';
import { pollUntil, stopAll } from '../../scripts/proc';
import {
	SMTP_CREDENTIAL_ID,
	SMTP_CREDENTIAL_NAME,
	activate,
	deactivate,
	type Stack,
} from '../../scripts/stack';

const WORKFLOW = 'apptReactToEvents'; // the workflow `npm run dev` publishes
const TRIGGER_NODE = 'On Created or Canceled';

let stack: Stack;
let browser: Browser;
let page: Page;

beforeAll(async () => {
	stack = await startE2EStack('e2e-dashboard', {
		email: 'dash@example.com',
		password: 'Dash-Passw0rd',
		firstName: 'Dash',
		lastName: 'Board',
	});
	await activate(stack.api, WORKFLOW);
	await pollUntil(
		'the published trigger workflow to subscribe in the sandbox',
		async () => {
			const { webhooks } = await stack.admin.ok('GET', '/__sandbox/webhooks/');
			return webhooks.some((w: any) => String(w.url).startsWith(`${stack.n8n.url}/webhook/`))
				? true
				: undefined;
		},
		{ timeoutMs: 30000 },
	);
	browser = await launchBrowser();
	page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
}, 20 * 60_000);

afterAll(async () => {
	await browser?.close();
	if (stack) await deactivate(stack.api, WORKFLOW).catch(() => undefined);
	await stack?.stop();
	await stopAll();
});

it('sign in, see the trigger subscription, create an appointment: the workflow runs and the delivery shows n8n’s 200', async () => {
	await page.goto(`${stack.sandboxUrl}/dashboard/`);
	await page.getByLabel('Admin token').fill(stack.adminToken);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.waitForURL(/\/dashboard\/appointments\/$/);

	await page
		.getByRole('navigation', { name: 'Main' })
		.getByRole('link', { name: 'Settings' })
		.click();
	await page.getByRole('link', { name: /^Integrations › Webhooks/ }).click();
	const row = page.getByRole('row', {
		name: new RegExp(`${stack.n8n.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/webhook/`),
	});
	expect(await row.count()).toBe(1);
	expect(await row.textContent()).toMatch(/appointment\.created[\s\S]*appointment\.canceled/);

	const executions = async () =>
		((await stack.api.ok('GET', `/api/v1/executions?workflowId=${WORKFLOW}&limit=250`)) as any)
			.data as any[];
	const seen = new Set((await executions()).map((e) => e.id));

	await page.getByRole('link', { name: 'Appointments' }).click();
	await page.getByRole('link', { name: 'New appointment' }).click();
	await page.getByLabel('Client name').fill('Dashboard Acceptance');
	await page.getByLabel('Client email').fill('dashboard.acceptance@example.com');
	await page.getByRole('button', { name: 'Create appointment' }).click();
	expect(await page.getByRole('status').textContent()).toMatch(
		/answered 201[\s\S]*Notifications queued: 1[\s\S]*appointment\.created/,
	);
	const key = (await page.getByRole('row', { name: /^Key/ }).locator('td').textContent())!.trim();

	const fresh = await pollUntil(
		'the workflow execution for the new appointment',
		async () => {
			const l = (await executions()).filter((e) => !seen.has(e.id));
			return l.length > 0 &&
				l.every((e) => e.finished || e.status === 'success' || e.status === 'error')
				? l
				: undefined;
		},
		{ timeoutMs: 60000 },
	);
	expect(fresh).toHaveLength(1);
	expect(fresh[0].status).toBe('success');
	const ex: any = await stack.api.ok('GET', `/api/v1/executions/${fresh[0].id}?includeData=true`);
	expect(nodeOutput(ex, TRIGGER_NODE)).toEqual([
		expect.objectContaining({
			event: 'appointment.created',
			data: expect.objectContaining({ appointment_key: key }),
		}),
	]);

	await page.getByRole('link', { name: 'Notifications about this appointment' }).click();
	const card = page.getByRole('article', {
		name: new RegExp(
			`^appointment\\.created to ${stack.n8n.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/webhook/`,
		),
	});
	expect(await card.textContent()).toMatch(/delivered/);
	expect(await card.getByRole('cell', { name: '200', exact: true }).count()).toBe(1); // the attempt's answer from n8n
});

it('the imported "Local mail sink" credential sends: n8n’s Send Email node emails through it and the message shows in the Mailbox', async () => {
	const wf: any = await stack.api.ok('POST', '/api/v1/workflows', {
		body: {
			name: 'Mail sink e2e',
			settings: {},
			nodes: [
				{
					id: 'a1',
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: 'b7c1d0e2-5a43-4f0e-9d7a-1c2d3e4f5a6b',
					parameters: { path: 'mail-sink-e2e', httpMethod: 'GET' },
				},
				{
					id: 'a2',
					name: 'Send Email',
					type: 'n8n-nodes-base.emailSend',
					typeVersion: 2.1,
					position: [220, 0],
					parameters: {
						fromEmail: 'bookings@example.com',
						toEmail: 'reception@example.com',
						subject: 'Agenda from n8n',
						emailFormat: 'text',
						text: 'Ana Rojas at 10:00',
						options: {},
					},
					credentials: { smtp: { id: SMTP_CREDENTIAL_ID, name: SMTP_CREDENTIAL_NAME } },
				},
			],
			connections: { Webhook: { main: [[{ node: 'Send Email', type: 'main', index: 0 }]] } },
		},
	});
	await activate(stack.api, wf.id);
	try {
		await pollUntil(
			'the webhook of the mail workflow',
			async () =>
				(await stack.n8n.http.call('GET', '/webhook/mail-sink-e2e')).status === 200
					? true
					: undefined,
			{ timeoutMs: 30000 },
		);
		const m = await waitForMail(
			stack.sandboxUrl,
			stack.adminToken,
			(x) => x.subject === 'Agenda from n8n',
			60000,
		);
		expect(m).toMatchObject({
			from: 'bookings@example.com',
			to: ['reception@example.com'],
			text: expect.stringContaining('Ana Rojas at 10:00'),
		});
		await page
			.getByRole('navigation', { name: 'Main' })
			.getByRole('link', { name: 'Mailbox' })
			.click();
		const row = page.getByRole('row', { name: /Agenda from n8n/ }).first();
		expect(await row.textContent()).toMatch(
			/bookings@example\.com[\s\S]*reception@example\.com[\s\S]*Agenda from n8n/,
		);
	} finally {
		await deactivate(stack.api, wf.id).catch(() => undefined);
		await stack.api.call('DELETE', `/api/v1/workflows/${wf.id}`);
	}
});
