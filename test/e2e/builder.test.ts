/**
 * What a builder sees of issue 19 in the real n8n 2.41.1 editor (Debian's chromium through playwright-core),
 * against the sandbox: the node creator finds the nodes by the words builders search for, and the trigger's
 * Calendar filter lists the account's calendars by name.
 */
import type { Page } from 'playwright-core';

import { closeEditor, openEditor } from '../helpers/e2e';
import { pollUntil } from '../../scripts/proc';
import type { Stack } from '../../scripts/stack';

const owner = {
	email: 'builder@example.com',
	password: 'Builder-Passw0rd',
	firstName: 'Bui',
	lastName: 'Lder',
};

let stack: Stack;
let page: Page;

beforeAll(async () => {
	({ stack, page } = await openEditor('e2e-builder', owner));
}, 20 * 60_000);

afterAll(closeEditor);

const creator = () => page.getByTestId('node-creator');
const ndv = () => page.getByTestId('ndv');

async function search(text: string): Promise<void> {
	await page.goto('/workflow/new');
	await page.getByTestId('canvas-add-button').click();
	await creator().getByTestId('node-creator-search-bar').fill(text);
}

test.each(['booking', 'calendar', 'schedule', 'reservation', 'reminder', 'meeting'])(
	'searching "%s" finds the Appointments nodes',
	async (word) => {
		await search(word);
		await creator()
			.getByTestId('item-iterator-item')
			.filter({ hasText: 'Appointments' })
			.first()
			.waitFor();
	},
);

test("the trigger's Calendar filter lists the account's calendars by name", async () => {
	const all: any[] = (await stack.admin.ok('GET', '/__sandbox/appointments/')).appointments;
	const names = [...new Set(all.map((a) => String(a.calendar.name)))];
	await search('Appointments');
	await creator()
		.getByTestId('item-iterator-item')
		.filter({ hasText: 'Appointments' })
		.first()
		.click();
	await creator().getByText('On appointment created').click();
	await ndv().waitFor();
	await ndv().getByPlaceholder('Add Filter').click();
	await page.getByRole('option', { name: 'Calendars' }).click();
	await ndv().getByRole('button', { name: 'Add Calendar' }).click();
	await ndv().getByTestId('rlc-input').click();
	const items = page.getByTestId('rlc-item');
	await items.first().waitFor();
	const shown = await pollUntil('the calendars in the list', async () => {
		const texts = await items.allInnerTexts();
		return texts.length > 0 ? texts.map((t) => t.trim()) : undefined;
	});
	expect(shown.every((name) => names.includes(name))).toBe(true);
	expect(new Set(shown).size).toBe(shown.length);
	await page.getByTestId('rlc-search').fill(names[0].slice(0, 4));
	await pollUntil('the list to narrow', async () => {
		const texts = await items.allInnerTexts();
		return texts.length > 0 &&
			texts.every((t) => t.toLowerCase().includes(names[0].slice(0, 4).toLowerCase()))
			? true
			: undefined;
	});
	const picked = (await items.first().innerText()).trim();
	await items.first().click();
	await pollUntil('the picked calendar in the field', async () =>
		(await ndv().getByTestId('rlc-input').inputValue()) === picked ? true : undefined,
	);
});

test("Get Many (a new node: version 4): Options holds Time Zone, Advanced the rest, without the retry settings (n8n's Retry On Fail); Calendar is picked from the list", async () => {
	const all: any[] = (await stack.admin.ok('GET', '/__sandbox/appointments/')).appointments;
	const names = new Set(all.map((a) => String(a.calendar.name)));
	await search('Appointments');
	await creator()
		.getByTestId('item-iterator-item')
		.filter({ hasText: 'Appointments' })
		.first()
		.click();
	await creator()
		.getByText(/^Actions \(10\)/)
		.click();
	await creator().getByText('Get many appointments', { exact: true }).click();
	await ndv().waitFor();
	// Options has one choice left, so n8n shows a button that adds it.
	await ndv().getByRole('button', { name: 'Add Option' }).click();
	await ndv().getByText('Time Zone', { exact: true }).waitFor();
	await ndv().getByPlaceholder('Add Setting').click();
	const settings = (await page.getByRole('option').allInnerTexts()).map((o) => o.trim());
	expect(settings).toEqual(['Concurrency', 'Page Concurrency', 'Timeout (Seconds)']);
	await page.keyboard.press('Escape');
	await ndv().getByPlaceholder('Add Filter').click();
	await page.getByRole('option', { name: 'Calendar', exact: true }).click();
	await ndv().getByTestId('rlc-input').click();
	const items = page.getByTestId('rlc-item');
	await items.first().waitFor();
	const shown = (await items.allInnerTexts()).map((t) => t.trim());
	expect(shown.length).toBeGreaterThan(1);
	expect(new Set(shown).size).toBe(shown.length);
	expect(shown.every((name) => names.has(name))).toBe(true);
});
