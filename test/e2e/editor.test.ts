/**
 * The nodes as a builder meets them: Debian's chromium (playwright-core) driving the real n8n 2.41.1 editor of the
 * e2e stack, against the sandbox's seeded demo account. Find the nodes, add Update Status, pick an appointment from
 * the list narrowed by a name, execute the step; open and run a saved version-1 workflow; the webhook trigger with
 * Filters listening for a test event; the polling trigger with starting soon, Lead Time and Filters fetching one.
 * `npm run screenshots` saves the steps the docs show as docs/screenshots/editor-*.png.
 */
import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';

import v1Workflow from '../fixtures/v1-mark-no-shows.json';
import { screenshot } from '../../scripts/browser';
import { closeEditor, openEditor, settled, TZ } from '../helpers/e2e';
import { pollUntil } from '../../scripts/proc';
import type { Stack } from '../../scripts/stack';

const owner = {
	email: 'editor@example.com',
	password: 'Editor-Passw0rd',
	firstName: 'Ed',
	lastName: 'Itor',
};

let stack: Stack;
let page: Page;

beforeAll(async () => {
	({ stack, page } = await openEditor('e2e-editor', owner));
}, 20 * 60_000);

afterAll(closeEditor);

const creator = () => page.getByTestId('node-creator');
const ndv = () => page.getByTestId('ndv');

async function sandboxAppointments(): Promise<any[]> {
	return (await stack.admin.ok('GET', '/__sandbox/appointments/')).appointments;
}

/** The credential the NDV shows as selected (the select's text or its input's value). */
async function selectedCredential(): Promise<string> {
	const select = ndv().getByTestId('node-credentials-select');
	await select.waitFor();
	const values = await select
		.locator('input')
		.evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value));
	return [await select.innerText(), ...values].join(' ');
}

/** Opens the node creator on an empty canvas and searches for our nodes. */
async function searchAppointments(): Promise<void> {
	await page.goto('/workflow/new');
	await page.getByTestId('canvas-add-button').click();
	await creator().getByTestId('node-creator-search-bar').fill('Appointments');
	await creator()
		.getByTestId('item-iterator-item')
		.filter({ hasText: 'Appointments' })
		.first()
		.click();
}

/** Adds the polling trigger from the node creator by its "starting soon" event (that opens its panel). */
async function addPollingTrigger(): Promise<void> {
	await page.goto('/workflow/new');
	await page.getByTestId('canvas-add-button').click();
	await creator().getByTestId('node-creator-search-bar').fill('Appointments');
	await creator()
		.getByTestId('item-iterator-item')
		.filter({ hasText: 'Appointments Polling' })
		.first()
		.click();
	await creator().getByText('On appointment starting soon').click();
}

test('the node creator lists the trigger events and all ten actions', async () => {
	await searchAppointments();
	for (const event of [
		'On appointment created',
		'On appointment updated',
		'On appointment canceled',
	]) {
		await creator().getByText(event).waitFor();
	}
	await creator()
		.getByText(/^Actions \(10\)/)
		.click();
	const actions = [
		'Get many appointments',
		'Get an appointment',
		'Find free times in a calendar',
		'Update the status of an appointment',
		'Reschedule an appointment',
		'Cancel an appointment',
		'Get many webhooks',
		'Create a webhook',
		'Update a webhook',
		'Delete a webhook',
	];
	for (const action of actions) await creator().getByText(action, { exact: true }).waitFor();
	await settled(page);
	await screenshot(page, 'editor-1-node-creator');
});

test('Update Status: credential, an appointment from the list narrowed by a name, a status, Execute step', async () => {
	// An upcoming CONFIRMED appointment of a person whose name narrows the list to a few entries.
	const today = DateTime.now().setZone(TZ).startOf('day');
	const all = await sandboxAppointments();
	const target = all.find(
		(a) => a.status === 'CONFIRMED' && DateTime.fromISO(a.start_date) >= today.plus({ days: 1 }),
	)!;
	const typed = target.person.full_name.split(' ').slice(0, 2).join(' ');

	await creator().getByText('Update the status of an appointment').click();
	await ndv().waitFor();
	// The stack's only Appointments credential: n8n preselects it; pick it explicitly if it did not.
	if (!(await selectedCredential()).includes('Appointments API')) {
		await page.getByTestId('node-credentials-select').click();
		await page.getByRole('option', { name: 'Appointments API' }).click();
	}
	expect(await selectedCredential()).toContain('Appointments API');

	// From List: the sandbox's appointments, upcoming first, as a person recognises them.
	await page.getByTestId('rlc-input').click();
	const items = page.getByTestId('rlc-item');
	await items.first().waitFor();
	const unfiltered = await items.count();
	expect(await items.first().innerText()).toMatch(
		/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d{2}:\d{2} · /,
	);
	// Typing narrows the list to that person's appointments.
	await page.getByTestId('rlc-search').fill(typed);
	await pollUntil('the list to narrow to the typed name', async () => {
		const texts = await items.allInnerTexts();
		return texts.length > 0 &&
			texts.length < unfiltered &&
			texts.every((t) => t.toLowerCase().includes(typed.toLowerCase()))
			? true
			: undefined;
	});
	await settled(page);
	await screenshot(page, 'editor-3-appointment-list-search');
	await items.filter({ hasText: target.search_code }).click();

	await page.getByTestId('parameter-input-status').click();
	await page.getByRole('option', { name: 'Attended' }).click();

	await ndv().getByTestId('node-execute-button').first().click();
	const output = page.getByTestId('output-panel');
	await output.getByText(target.appointment_key).first().waitFor();
	await output.getByText('ATTENDED').first().waitFor();
	await settled(page);
	await screenshot(page, 'editor-5-update-status-output');
	expect(
		(await stack.admin.ok('GET', `/__sandbox/appointments/${target.appointment_key}/`)).status,
	).toBe('ATTENDED');
});

test('a saved version-1 workflow (example 2 as released) opens and runs unchanged', async () => {
	// Yesterday's CONFIRMED appointments are what the workflow marks as NO_SHOW.
	const yesterday = DateTime.now()
		.setZone(TZ)
		.minus({ days: 1 })
		.set({ hour: 11, minute: 0, second: 0, millisecond: 0 });
	await stack.admin.ok('POST', '/__sandbox/appointments/', {
		body: { status: 'CONFIRMED', start_date: yesterday.toISO() },
	});
	const isYesterday = (a: any) =>
		DateTime.fromISO(a.start_date).setZone(TZ).hasSame(yesterday, 'day');
	const due = (await sandboxAppointments()).filter(
		(a) => a.status === 'CONFIRMED' && isYesterday(a),
	);
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

	for (const a of due) {
		expect(
			(await stack.admin.ok('GET', `/__sandbox/appointments/${a.appointment_key}/`)).status,
		).toBe('NO_SHOW');
	}
	// Opening and running it in the editor left its nodes at version 1 with their plain key fields.
	const saved = await stack.api.ok('GET', `/api/v1/workflows/${created.id}`);
	const ours = saved.nodes.filter((n: any) => n.type === 'n8n-nodes-appointments.appointments');
	expect(ours.map((n: any) => n.typeVersion)).toEqual([1, 1]);
	expect(ours[1].parameters.appointmentKey).toBe('={{ $json.appointment_key }}');
});

/** Filters › Calendar (as in Get Many: no row to add first): picks the first calendar of the list; returns its name. */
async function pickFilterCalendar(): Promise<string> {
	await ndv().getByPlaceholder('Add Filter').click();
	await page.getByRole('option', { name: 'Calendar', exact: true }).click();
	await ndv().getByTestId('rlc-input').click();
	const first = page.getByTestId('rlc-item').first();
	await first.waitFor();
	const name = (await first.innerText()).trim();
	await first.click();
	await pollUntil('the picked calendar in the field', async () =>
		(await ndv().getByTestId('rlc-input').inputValue()) === name ? true : undefined,
	);
	return name;
}

/** Picks options of a multi-option parameter (Events, Statuses) and closes its list. */
async function pickOptions(parameter: string, names: string[]): Promise<void> {
	const field = ndv().getByTestId(`parameter-input-${parameter}`);
	const box = (await field.boundingBox())!;
	// Opened at its arrow: the middle may be a chosen option's remove button.
	await field.click({ position: { x: box.width - 16, y: box.height / 2 } });
	// An option shows its name over its description: pick the one whose name is exactly this.
	for (const name of names)
		await page
			.getByRole('option')
			.filter({ has: page.getByText(name, { exact: true }) })
			.click();
	await page.keyboard.press('Escape');
	for (const name of names) await field.getByText(name, { exact: true }).waitFor();
}

async function addStatusFilter(names: string[]): Promise<void> {
	await ndv().getByPlaceholder('Add Filter').click();
	await page.getByRole('option', { name: 'Statuses' }).click();
	await pickOptions('statuses', names);
}

function calendarKey(all: any[], name: string): string {
	return all.find((a) => a.calendar.name === name)!.calendar.calendar_key;
}

test('the trigger with Filters: Listen for test event, only an appointment of the picked calendar and status arrives', async () => {
	await searchAppointments();
	await creator().getByText('On appointment created').click();
	await ndv().waitFor();
	expect(await selectedCredential()).toContain('Appointments API');
	const all = await sandboxAppointments();
	const calendar = await pickFilterCalendar();
	await addStatusFilter(['Pending']);
	const other = all.find((a) => a.calendar.name !== calendar)!.calendar;

	await ndv().getByTestId('node-execute-button').first().click();
	// Listening: the trigger subscribed n8n's test URL in the sandbox.
	const hook = await pollUntil('the test URL subscription', async () => {
		const hooks: any[] = (await stack.admin.ok('GET', '/__sandbox/webhooks/')).webhooks;
		return hooks.find((h) => String(h.url).startsWith(`${stack.n8n.url}/webhook-test/`));
	});
	const start = DateTime.now()
		.setZone(TZ)
		.plus({ days: 2 })
		.set({ hour: 10, minute: 30, second: 0, millisecond: 0 })
		.toISO();
	// Another calendar's appointment: n8n answers the service, and the test run keeps listening.
	const elsewhere = await stack.admin.ok('POST', '/__sandbox/appointments/', {
		body: { status: 'PENDING', start_date: start, calendar: { calendar_key: other.calendar_key } },
	});
	await pollUntil("the delivery of the other calendar's appointment", async () => {
		const d: any = await stack.admin.ok(
			'GET',
			`/__sandbox/deliveries/?appointment_key=${elsewhere.appointment_key}`,
		);
		return d.deliveries.some((x: any) => x.ok && x.url === hook.url) ? true : undefined;
	});
	const appointment = await stack.admin.ok('POST', '/__sandbox/appointments/', {
		body: {
			status: 'PENDING',
			start_date: start,
			calendar: { calendar_key: calendarKey(all, calendar) },
		},
	});
	const output = page.getByTestId('output-panel');
	await output.getByText('appointment.created').first().waitFor({ timeout: 60_000 });
	await output.getByText(appointment.appointment_key).first().waitFor();
	expect(await output.getByText(elsewhere.appointment_key).count()).toBe(0);
	await settled(page);
	await screenshot(page, 'editor-8-trigger-event');
});

test('the polling trigger: created and starting soon with Lead Time, Filters, Fetch test event', async () => {
	const all = await sandboxAppointments();
	await addPollingTrigger();
	await ndv().waitFor();
	expect(await selectedCredential()).toContain('Appointments API');
	await ndv()
		.getByTestId('parameter-input-events')
		.getByText('Appointment Starting Soon', { exact: true })
		.waitFor();
	await pickOptions('events', ['Appointment Created']);
	await ndv()
		.getByTestId('parameter-input-events')
		.getByText('Appointment Starting Soon', { exact: true })
		.waitFor();
	await ndv().getByText('Lead Time (Minutes)').waitFor(); // shown for starting soon: 1440, a day before
	const calendar = await pickFilterCalendar();
	await addStatusFilter(['Confirmed']);

	await ndv().getByTestId('node-execute-button').first().click();
	const output = page.getByTestId('output-panel');
	await output
		.getByText(/appointment\.(created|starting_soon)/)
		.first()
		.waitFor({ timeout: 60_000 });
	// The test event is one of the picked calendar's confirmed appointments.
	const shown = await output.innerText();
	const mine = all.filter((a) => a.calendar.name === calendar && a.status === 'CONFIRMED');
	expect(mine.some((a) => shown.includes(a.appointment_key))).toBe(true);
	await settled(page);
	await screenshot(page, 'editor-9-polling-trigger');
});
