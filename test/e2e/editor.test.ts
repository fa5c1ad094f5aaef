/**
 * The nodes as a builder meets them: Debian's chromium (playwright-core) driving the real n8n 2.41.1 editor of the
 * e2e stack, against the sandbox. Sign in, find the node, add Update Status, pick an appointment from the list
 * narrowed by a name, execute the step; open and run a saved version-1 workflow; listen for a trigger's test
 * event. `npm run screenshots` saves each step to docs/screenshots/editor-*.png (the README shows the key ones).
 */
import crypto from 'node:crypto';

import { DateTime } from 'luxon';
import { selectors, type Browser, type BrowserContext, type Page } from 'playwright-core';

import v1Workflow from '../fixtures/v1-mark-no-shows.json';
import { launchBrowser, screenshot } from '../../scripts/browser';
import { e2eUserFolder } from '../helpers/e2e';
import { killAllOnSignals, pollUntil, stopAll } from '../../scripts/proc';
import { startStack, type Stack } from '../../scripts/stack';

const TZ = 'America/Santiago'; // n8n's GENERIC_TIMEZONE in the stack, and the sandbox's account zone
const owner = { email: 'editor@example.com', password: 'Editor-Passw0rd', firstName: 'Ed', lastName: 'Itor' };

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
	killAllOnSignals();
	stack = await startStack({
		userFolder: e2eUserFolder('e2e-editor'),
		owner,
		reimport: 'always',
		log: (m) => process.stderr.write(`[e2e editor] ${m}\n`),
	});
	selectors.setTestIdAttribute('data-test-id'); // n8n's test ids
	browser = await launchBrowser();
	context = await browser.newContext({
		baseURL: stack.n8n.url,
		ignoreHTTPSErrors: true, // the stack's self-signed certificate
		viewport: { width: 1440, height: 900 },
		timezoneId: TZ,
		locale: 'en-US',
	});
	page = await context.newPage();
}, 20 * 60_000);

afterAll(async () => {
	await browser?.close();
	await stack?.stop();
	await stopAll();
});

const creator = () => page.getByTestId('node-creator');
const ndv = () => page.getByTestId('ndv');

async function sandboxAppointments(): Promise<any[]> {
	return (await stack.admin.ok('GET', '/__sandbox/appointments/')).appointments;
}

/** The credential the NDV shows as selected (the select's text or its input's value). */
async function selectedCredential(): Promise<string> {
	const select = ndv().getByTestId('node-credentials-select');
	await select.waitFor();
	const values = await select.locator('input').evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value));
	return [await select.innerText(), ...values].join(' ');
}

/** Opens the node creator on an empty canvas and searches for our nodes. */
async function searchAppointments(): Promise<void> {
	await page.goto('/workflow/new');
	await page.getByTestId('canvas-add-button').click();
	await creator().getByTestId('node-creator-search-bar').fill('Appointments');
	await creator().getByTestId('item-iterator-item').filter({ hasText: 'Appointments' }).first().click();
}

test('sign in through the login form', async () => {
	await page.goto('/signin');
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(owner.email);
	await page.getByTestId('password').locator('input').fill(owner.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL(/\/(home|workflows)/);
});

test('the node creator lists the trigger events and all nine actions', async () => {
	await searchAppointments();
	for (const event of ['On appointment created', 'On appointment updated', 'On appointment canceled']) {
		await creator().getByText(event).waitFor();
	}
	await creator().getByText(/^Actions \(9\)/).click();
	const actions = [
		'Get many appointments',
		'Get an appointment',
		'Update the status of an appointment',
		'Reschedule an appointment',
		'Cancel an appointment',
		'Get many webhooks',
		'Create a webhook',
		'Update a webhook',
		'Delete a webhook',
	];
	for (const action of actions) await creator().getByText(action, { exact: true }).waitFor();
	await screenshot(page, 'editor-1-node-creator');
});

test('Update Status: credential, an appointment from the list narrowed by a name, a status, Execute step', async () => {
	// An upcoming CONFIRMED appointment of a person whose name narrows the list to a few entries.
	const today = DateTime.now().setZone(TZ).startOf('day');
	const all = await sandboxAppointments();
	const target = all.find((a) => a.status === 'CONFIRMED' && DateTime.fromISO(a.start_date) >= today.plus({ days: 1 }))!;
	const typed = target.person.full_name.split(' ').slice(0, 2).join(' ');

	await creator().getByText('Update the status of an appointment').click();
	await ndv().waitFor();
	// The stack's only Appointments credential: n8n preselects it; pick it explicitly if it did not.
	if (!(await selectedCredential()).includes('Appointments API')) {
		await page.getByTestId('node-credentials-select').click();
		await page.getByRole('option', { name: 'Appointments API' }).click();
	}
	expect(await selectedCredential()).toContain('Appointments API');
	await screenshot(page, 'editor-2-update-status');

	// From List: the sandbox's appointments, upcoming first, as a person recognises them.
	await page.getByTestId('rlc-input').click();
	const items = page.getByTestId('rlc-item');
	await items.first().waitFor();
	const unfiltered = await items.count();
	expect(await items.first().innerText()).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d{2}:\d{2} · /);
	// Typing narrows the list to that person's appointments.
	await page.getByTestId('rlc-search').fill(typed);
	await pollUntil('the list to narrow to the typed name', async () => {
		const texts = await items.allInnerTexts();
		return texts.length > 0 && texts.length < unfiltered && texts.every((t) => t.toLowerCase().includes(typed.toLowerCase())) ? true : undefined;
	});
	await screenshot(page, 'editor-3-appointment-list-search');
	await items.filter({ hasText: target.search_code }).click();

	await page.getByTestId('parameter-input-status').click();
	await page.getByRole('option', { name: 'Attended' }).click();
	await screenshot(page, 'editor-4-update-status-filled');

	await ndv().getByTestId('node-execute-button').first().click();
	const output = page.getByTestId('output-panel');
	await output.getByText(target.appointment_key).first().waitFor();
	await output.getByText('ATTENDED').first().waitFor();
	await screenshot(page, 'editor-5-update-status-output');
	expect((await stack.admin.ok('GET', `/__sandbox/appointments/${target.appointment_key}/`)).status).toBe('ATTENDED');
});

test('a saved version-1 workflow (example 2 as released) opens and runs unchanged', async () => {
	// Yesterday's CONFIRMED appointments are what the workflow marks as NO_SHOW.
	const yesterday = DateTime.now().setZone(TZ).minus({ days: 1 }).set({ hour: 11, minute: 0, second: 0, millisecond: 0 });
	await stack.admin.ok('POST', '/__sandbox/appointments/', {
		body: { status: 'CONFIRMED', start_date: yesterday.toISO(), person: { full_name: 'Yesterday Person', email: 'yesterday@example.com' } },
	});
	const isYesterday = (a: any) => DateTime.fromISO(a.start_date).setZone(TZ).hasSame(yesterday, 'day');
	const due = (await sandboxAppointments()).filter((a) => a.status === 'CONFIRMED' && isYesterday(a));
	expect(due.length).toBeGreaterThan(0);

	const created = await stack.api.ok('POST', '/api/v1/workflows', {
		body: {
			name: `Version 1: ${v1Workflow.name}`,
			nodes: v1Workflow.nodes,
			connections: v1Workflow.connections,
			settings: v1Workflow.settings,
		},
	});
	await page.goto(`/workflow/${created.id}`);
	await page.getByTestId('execute-workflow-button').click();
	await page.getByText('Workflow executed successfully').waitFor();
	// Both Appointments nodes passed on every due appointment (the canvas labels its connections).
	await page.getByText(`${due.length} items`).first().waitFor();
	await screenshot(page, 'editor-6-version-1-workflow');

	for (const a of due) {
		expect((await stack.admin.ok('GET', `/__sandbox/appointments/${a.appointment_key}/`)).status).toBe('NO_SHOW');
	}
	// Opening and running it in the editor left its nodes at version 1 with their plain key fields.
	const saved = await stack.api.ok('GET', `/api/v1/workflows/${created.id}`);
	const ours = saved.nodes.filter((n: any) => n.type === 'n8n-nodes-appointments.appointments');
	expect(ours.map((n: any) => n.typeVersion)).toEqual([1, 1]);
	expect(ours[1].parameters.appointmentKey).toBe('={{ $json.appointment_key }}');
});

test('the trigger: Listen for test event, an appointment created in the sandbox shows in the output panel', async () => {
	await searchAppointments();
	await creator().getByText('On appointment created').click();
	await ndv().waitFor();
	expect(await selectedCredential()).toContain('Appointments API');
	await ndv().getByTestId('node-execute-button').first().click();
	// Listening: the trigger subscribed n8n's test URL in the sandbox.
	await pollUntil('the test URL subscription', async () => {
		const hooks: any[] = (await stack.admin.ok('GET', '/__sandbox/webhooks/')).webhooks;
		return hooks.some((h) => String(h.url).startsWith(`${stack.n8n.url}/webhook-test/`)) ? true : undefined;
	});
	await screenshot(page, 'editor-7-trigger-listening');

	const name = `Editor Test ${crypto.randomUUID().slice(0, 6)}`;
	const appointment = await stack.admin.ok('POST', '/__sandbox/appointments/', {
		body: { status: 'PENDING', start_date: DateTime.now().setZone(TZ).plus({ days: 2 }).toISO(), person: { full_name: name, email: 'editor@example.com' } },
	});
	const output = page.getByTestId('output-panel');
	await output.getByText('appointment.created').first().waitFor({ timeout: 60_000 });
	await output.getByText(appointment.appointment_key).first().waitFor();
	await screenshot(page, 'editor-8-trigger-event');
});
