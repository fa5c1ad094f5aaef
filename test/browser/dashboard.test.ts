/**
 * The sandbox's web dashboard in a real browser (Debian's chromium through playwright-core): sign-in, the
 * navigation, Settings › Integrations › Webhooks against the API's own list, Settings › API access, an appointment
 * created and canceled with email and its deliveries, escaping, CSRF, sign-out. The Mailbox is in mailbox.test.ts;
 * the pictures of docs/screenshots/ are taken from the demo data by screenshots.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

import { launchBrowser } from '../../scripts/browser';
import {
	ADMIN,
	LIMITED,
	TOKEN,
	client,
	pollUntil,
	receiver,
	selfSigned,
	start,
	type Sandbox,
} from '../sandbox/helpers';

jest.setTimeout(120_000);

let sb: Sandbox;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let hook: Awaited<ReturnType<typeof receiver>>;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);
const WEBHOOKS = '/dashboard/settings/integrations/webhooks/';
const STAND_IN =
	"Citaflow is the sandbox's stand-in name for the appointment scheduling service your n8n nodes talk to: its API, webhooks, dashboard and e-mails, all running on this machine.";

beforeAll(async () => {
	hook = await receiver();
	sb = await start({ seed: 60, ca: selfSigned().cert, now: '2026-11-23T09:00:00-03:00' });
	browser = await launchBrowser();
	context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
	page = await context.newPage();
	page.on('dialog', (d) => {
		throw new Error(`a dialog opened: ${d.message()}`);
	});
});
afterAll(async () => {
	await browser?.close();
	await sb?.close();
	await hook?.close();
});

/** An appointment's start as the dashboard shows it. */
const shown = (a: { start_date: string }) =>
	DateTime.fromISO(a.start_date, { zone: 'America/Santiago' })
		.setLocale('en-GB')
		.toFormat('ccc d LLL yyyy, HH:mm');

/** An element's text as read: white space collapsed (the markup is formatted by Prettier). */
const words = async (l: Locator) => (await l.textContent())!.replace(/\s+/g, ' ').trim();

async function signIn() {
	await page.goto(`${sb.url}/dashboard/`);
	await page.getByLabel('Admin token').fill(ADMIN);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.waitForURL(/\/dashboard\/appointments\/$/);
}

it('signs in with the admin token only, keyboard alone; nothing is reachable before', async () => {
	for (const path of [
		'/dashboard/',
		'/dashboard/appointments/',
		WEBHOOKS,
		'/dashboard/deliveries/',
		'/dashboard/mailbox/',
		'/dashboard/settings/',
		'/dashboard/settings/api/',
		'/dashboard/anything',
	]) {
		await page.goto(`${sb.url}${path}`);
		expect(new URL(page.url()).pathname).toBe('/dashboard/login');
	}
	await page.goto(`${sb.url}/dashboard/login`);
	expect(await words(page.getByRole('contentinfo'))).toBe(STAND_IN);
	// the token is named as `npm run dev` prints it (scripts/dev.ts)
	expect(await page.locator('.login').innerText()).toContain(
		'“Admin token for /__sandbox/ and the dashboard”',
	);
	// the token field has the focus; type a wrong token and press Enter
	await page.keyboard.type('not-the-token');
	await page.keyboard.press('Enter');
	expect(await page.locator('#f-token-error').textContent()).toBe('Not the admin token.');
	expect(await page.getByLabel('Admin token').getAttribute('aria-invalid')).toBe('true');
	expect(await page.evaluate('document.activeElement.id')).toBe('f-token');
	await page.keyboard.type(ADMIN);
	await page.keyboard.press('Enter');
	await page.waitForURL(/\/dashboard\/appointments\/$/);
	const cookies = await context.cookies();
	const session = cookies.find((c) => c.name === 'sbx_session')!;
	expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
	expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Appointments');
});

/** A browser restarted: the cookies with an expiry (the sign-in) come back, the session-only ones do not. */
async function restarted(keep: (c: { name: string; expires: number }) => boolean = () => true) {
	const persistent = (await context.cookies()).filter((c) => c.expires !== -1 && keep(c));
	expect(persistent.map((c) => c.name)).toContain('sbx_session');
	const again = await browser.newContext({ viewport: { width: 1280, height: 800 } });
	await again.addCookies(persistent);
	return again;
}

it('after a browser restart the first page loaded works: its form and its Sign out (the CSRF cookie lives as long as the sign-in)', async () => {
	const csrf = (await context.cookies()).find((c) => c.name === 'sbx_csrf')!;
	const session = (await context.cookies()).find((c) => c.name === 'sbx_session')!;
	expect(csrf.expires).toBeGreaterThan(session.expires - 60);
	// the CSRF cookie kept, or gone (expired, deleted): either way the first page's form is accepted
	for (const keep of [() => true, (c: { name: string }) => c.name !== 'sbx_csrf']) {
		const ctx = await restarted(keep);
		try {
			const p = await ctx.newPage();
			await p.goto(`${sb.url}/dashboard/appointments/new`);
			await p.getByLabel('Client name').fill('Back After Restart');
			await p.getByLabel('Client email').fill('restart@example.com');
			await p.getByRole('button', { name: 'Create appointment' }).click();
			await p.waitForURL(/\/dashboard\/appointments\/[0-9a-f-]{36}\/\?done=/);
		} finally {
			await ctx.close();
		}
	}
	expect((await api.ok('GET', '/api/v3/appointments/?email=restart@example.com')).count).toBe(2);
	const ctx = await restarted((c) => c.name !== 'sbx_csrf');
	try {
		const p = await ctx.newPage();
		await p.goto(`${sb.url}/dashboard/mailbox/`);
		await p.getByRole('button', { name: 'Sign out' }).click();
		await p.waitForURL(/\/dashboard\/login$/);
	} finally {
		await ctx.close();
	}
	await signIn(); // that signed this browser out too: one session
});

it('a form refused for its CSRF token says to reload the form, and its link back to the form works', async () => {
	await page.goto(`${sb.url}/dashboard/appointments/new`);
	await context.clearCookies({ name: 'sbx_csrf' });
	await page.getByLabel('Client name').fill('Refused Once');
	await page.getByRole('button', { name: 'Create appointment' }).click();
	const alert = (await page.getByRole('alert').textContent())!;
	expect(alert).toMatch(/Nothing was changed/);
	expect(alert).toMatch(/reload/i);
	expect((await api.ok('GET', '/api/v3/appointments/?name=Refused%20Once')).count).toBe(0);
	await page.getByRole('link', { name: 'Back to the form' }).click();
	await page.waitForURL(`${sb.url}/dashboard/appointments/new`);
	await page.getByLabel('Client name').fill('Refused Once');
	await page.getByRole('button', { name: 'Create appointment' }).click();
	await page.waitForURL(/\?done=/);
	expect((await api.ok('GET', '/api/v3/appointments/?name=Refused%20Once')).count).toBe(1);
});

it('the chrome names the product; the navigation is Appointments · Deliveries · Mailbox · Settings and marks the page shown', async () => {
	const nav = page.getByRole('navigation', { name: 'Main' });
	expect(await nav.getByRole('link').allTextContents()).toEqual([
		'Appointments',
		'Deliveries',
		'Mailbox',
		'Settings',
	]);
	expect(await page.locator('header .brand').textContent()).toBe('Citaflow local sandbox');
	// what the name is, said where a newcomer meets it (the sign-in page included: first test)
	expect(await words(page.getByRole('contentinfo'))).toBe(STAND_IN);
	// the stylesheet applies (the CSP allows it by its hash)
	expect(
		await page.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor"),
	).toBe('rgb(29, 36, 51)');
	for (const [label, path, h1] of [
		['Deliveries', '/dashboard/deliveries/', 'Deliveries'],
		['Mailbox', '/dashboard/mailbox/', 'Mailbox'],
		['Settings', '/dashboard/settings/', 'Settings'],
		['Appointments', '/dashboard/appointments/', 'Appointments'],
	]) {
		await nav.getByRole('link', { name: label }).click();
		await page.waitForURL(`${sb.url}${path}`);
		expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(h1);
		expect(await nav.locator('[aria-current=page]').textContent()).toBe(label);
		expect(await page.title()).toBe(`${h1} · Citaflow`);
	}
});

it('times are shown in the account time zone in a human format, the zone named on the page', async () => {
	const first = (await api.ok('GET', '/api/v3/appointments/?start_date=2026-11-20&page_size=1'))
		.results[0];
	const human = shown(first);
	await page.goto(`${sb.url}/dashboard/appointments/?from=2026-11-20`);
	expect(await page.getByRole('row').nth(1).getByRole('link').textContent()).toBe(human);
	const text = (await page.locator('main').textContent())!;
	expect(text).toContain('times in America/Santiago');
	expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
	await page.getByRole('link', { name: human }).click();
	expect(await words(page.getByRole('row', { name: /^Start/ }))).toBe(
		`Start ${human} (America/Santiago)`,
	);
});

it("Settings › API access shows the base URL, the access token (the credential's words) that authenticates against the API and the account time zone; Reveal and Copy work", async () => {
	await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: sb.url });
	await page.goto(`${sb.url}/dashboard/settings/`);
	await page.getByRole('link', { name: /^API access/ }).click();
	await page.waitForURL(`${sb.url}/dashboard/settings/api/`);
	const baseUrl = await page.getByLabel('Base URL', { exact: true }).inputValue();
	expect(baseUrl).toBe(sb.url);
	const tokenInput = page.getByLabel('Access token', { exact: true });
	expect(await tokenInput.getAttribute('type')).toBe('password'); // masked until revealed
	await page.getByRole('button', { name: 'Reveal Access token' }).click();
	expect(await tokenInput.getAttribute('type')).toBe('text');
	const token = await tokenInput.inputValue();
	// what a builder pastes into n8n's credential works against the API; the admin token is not shown here
	const res = await fetch(`${baseUrl}/api/v3/appointments/?page_size=1`, {
		headers: { authorization: `Bearer ${token}` },
	});
	expect(res.status).toBe(200);
	expect(token).not.toBe(ADMIN);
	await page.getByRole('button', { name: 'Copy Access token' }).click();
	await page
		.getByRole('button', { name: 'Copy Access token' })
		.filter({ hasText: 'Copied' })
		.waitFor();
	expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);
	await page.getByRole('button', { name: 'Copy Base URL' }).click();
	await page.getByRole('button', { name: 'Copy Base URL' }).filter({ hasText: 'Copied' }).waitFor();
	expect(await page.evaluate('navigator.clipboard.readText()')).toBe(sb.url);
	await page.getByRole('button', { name: 'Hide Access token' }).click();
	expect(await tokenInput.getAttribute('type')).toBe('password');
	expect(await page.getByLabel('Account time zone', { exact: true }).inputValue()).toBe(
		'America/Santiago',
	);
	// the restricted token is offered for what it is
	expect(await page.getByLabel('Appointments-only token 1', { exact: true }).inputValue()).toBe(
		LIMITED,
	);
});

it('breadcrumbs are links to the pages above', async () => {
	await page.goto(`${sb.url}${WEBHOOKS}new`);
	const crumbs = page.getByRole('navigation', { name: 'Breadcrumb' });
	expect(await words(crumbs)).toBe('Settings › Integrations › Webhooks › Add webhook');
	expect(await crumbs.locator('[aria-current=page]').textContent()).toBe('Add webhook');
	for (const [label, path, h1] of [
		['Webhooks', WEBHOOKS, 'Webhooks'],
		['Integrations', '/dashboard/settings/integrations/', 'Integrations'],
		['Settings', '/dashboard/settings/', 'Settings'],
	]) {
		await page.goto(`${sb.url}${WEBHOOKS}new`);
		await crumbs.getByRole('link', { name: label, exact: true }).click();
		await page.waitForURL(`${sb.url}${path}`);
		expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(h1);
	}
	await page.goto(`${sb.url}/dashboard/appointments/new`);
	await crumbs.getByRole('link', { name: 'Appointments' }).click();
	await page.waitForURL(`${sb.url}/dashboard/appointments/`);
});

it('Settings › Integrations › Webhooks: add (with field errors first), edit, test event, delete; the API sees each step', async () => {
	await page
		.getByRole('navigation', { name: 'Main' })
		.getByRole('link', { name: 'Settings' })
		.click();
	await page.getByRole('link', { name: /^Integrations › Webhooks/ }).click();
	await page.waitForURL(`${sb.url}${WEBHOOKS}`);
	await page.getByRole('link', { name: 'Add webhook' }).click();
	// http and no event: refused like the API does, errors next to the fields, input kept
	await page.getByLabel('Callback URL').fill('http://hooks.example/n8n');
	for (const e of ['appointment.created', 'appointment.updated', 'appointment.canceled'])
		await page.getByLabel(e, { exact: true }).uncheck();
	await page.getByRole('button', { name: 'Save' }).click();
	expect(await page.locator('#f-url-error').textContent()).toMatch(/must use HTTPS/);
	expect(await page.locator('#events-error').textContent()).toMatch(/at least one event/);
	expect(await page.getByLabel('Callback URL').inputValue()).toBe('http://hooks.example/n8n');
	expect((await api.ok('GET', '/api/v3/webhooks/')).count).toBe(0);

	await page.getByLabel('Callback URL').fill(hook.url('/n8n'));
	await page.getByLabel('appointment.created', { exact: true }).check();
	await page.getByLabel('appointment.canceled', { exact: true }).check();
	await page.getByLabel('Other events (comma separated)').fill('appointment.updated');
	await page.getByRole('button', { name: 'Save' }).click();
	await page.waitForURL(/notice=saved/);
	const [w] = (await api.ok('GET', '/api/v3/webhooks/')).results;
	expect(w).toMatchObject({
		url: hook.url('/n8n'),
		events: ['appointment.created', 'appointment.canceled', 'appointment.updated'],
	});
	const row = page.getByRole('row', { name: new RegExp(w.webhook_key) });
	expect(await row.textContent()).toContain(hook.url('/n8n'));

	await page.getByRole('link', { name: `Edit ${w.url}` }).click();
	expect(await page.getByLabel('Other events (comma separated)').inputValue()).toBe('');
	await page.getByLabel('appointment.updated', { exact: true }).uncheck();
	await page.getByRole('button', { name: 'Save' }).click();
	await page.waitForURL(/notice=saved/);
	expect((await api.ok('GET', '/api/v3/webhooks/')).results[0].events).toEqual([
		'appointment.created',
		'appointment.canceled',
	]);

	await page.getByRole('button', { name: `Send test event to ${w.url}` }).click();
	await page.waitForURL(/\/dashboard\/deliveries\/\?event_id=/);
	await pollUntil('the test event', async () =>
		hook.got.some((g) => g.path === '/n8n' && g.body.event === 'appointment.created')
			? true
			: undefined,
	);

	await page.goto(`${sb.url}${WEBHOOKS}`);
	await page.getByRole('link', { name: `Delete ${w.url}` }).click();
	expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Delete webhook?');
	expect((await api.ok('GET', '/api/v3/webhooks/')).count).toBe(1); // nothing deleted before the confirmation
	await page.getByRole('button', { name: 'Delete webhook' }).click();
	await page.waitForURL(/notice=deleted/);
	expect((await api.ok('GET', '/api/v3/webhooks/')).count).toBe(0);
});

it('a new appointment named <script> shows as text; canceling it with email shows the API answer, the email and the delivery with its attempt', async () => {
	await api.ok('POST', '/api/v3/webhooks/', {
		url: hook.url('/all'),
		events: ['appointment.created', 'appointment.canceled'],
	});
	const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>';
	await page.goto(`${sb.url}/dashboard/appointments/`);
	await page.getByRole('link', { name: 'New appointment' }).click();
	await page.getByLabel('Client name').fill(evil);
	await page.getByLabel('Client email').fill('xss@example.com');
	await page.getByLabel(/^Start/).fill('2026-11-25T10:30');
	await page.getByLabel('Status').selectOption('PENDING');
	await page.getByRole('button', { name: 'Create appointment' }).click();
	// redirected to the new appointment's page (post, redirect, get): a reload shows it again and creates nothing
	await page.waitForURL(/\/dashboard\/appointments\/[0-9a-f-]{36}\/\?done=/);
	await page.reload();
	expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
		`${evil} · Wed 25 Nov 2026, 10:30`,
	);
	expect(await page.locator('main script, main img').count()).toBe(0);
	expect(await page.getByRole('status').textContent()).toMatch(
		/POST \/__sandbox\/appointments\/ answered 201[\s\S]*Notifications queued: 1/,
	);
	expect((await api.ok('GET', '/api/v3/appointments/?email=xss@example.com')).count).toBe(1);
	const created = (await api.ok('GET', '/api/v3/appointments/?email=xss@example.com')).results[0];
	expect(created).toMatchObject({
		status: 'PENDING',
		person: { full_name: evil },
		start_date: '2026-11-25T10:30:00-03:00',
	});

	// the list escapes it too, and finds it by name
	await page.goto(`${sb.url}/dashboard/appointments/?q=${encodeURIComponent('<script>')}`);
	expect(await page.getByRole('cell', { name: evil }).count()).toBe(1);
	await page.getByRole('link', { name: 'Wed 25 Nov 2026, 10:30' }).click();

	// Cancel asks first, naming the appointment; nothing is canceled before the confirmation
	await page.getByRole('link', { name: 'Cancel appointment…' }).click();
	expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Cancel appointment?');
	expect(await words(page.locator('form.card p').first())).toContain(
		`The appointment of ${evil} on Wed 25 Nov 2026, 10:30`,
	);
	expect(
		(await adm.ok('GET', `/__sandbox/appointments/${created.appointment_key}/`)).is_cancelled,
	).toBe(false);
	expect(await page.getByLabel('Send email to client').isChecked()).toBe(true);
	await page.getByRole('button', { name: 'Cancel appointment' }).click();
	await page.waitForURL(/\?done=/);
	// a canceled appointment offers no Cancel
	expect(await page.getByRole('link', { name: 'Cancel appointment…' }).count()).toBe(0);
	expect(await page.getByText('Already canceled: there is nothing to cancel.').count()).toBe(1);
	const result = await page.getByRole('status').textContent();
	expect(result).toContain(
		`DELETE /api/v3/appointments/${created.appointment_key}/?send_email=true answered 200`,
	);
	expect(result).toMatch(/Notifications queued: 1[\s\S]*appointment\.canceled/);
	expect(await page.locator('table').first().textContent()).toMatch(
		/CANCELED[\s\S]*Cancellation email to xss@example.com/,
	);
	expect((await adm.ok('GET', '/__sandbox/emails/')).emails).toEqual([
		expect.objectContaining({ appointment_key: created.appointment_key, to: 'xss@example.com' }),
	]);

	await pollUntil('both deliveries', async () =>
		(await adm.ok('GET', `/__sandbox/deliveries/?appointment_key=${created.appointment_key}`))
			.succeeded >= 2
			? true
			: undefined,
	);
	await page.getByRole('link', { name: 'Notifications about this appointment' }).click();
	const cards = page.getByRole('article');
	expect(await cards.count()).toBe(2);
	const cancelCard = page.getByRole('article', {
		name: `appointment.canceled to ${hook.url('/all')}`,
	});
	expect(await cancelCard.textContent()).toMatch(/delivered[\s\S]*Attempt[\s\S]*200[\s\S]*ms/);
	await cancelCard.getByText('JSON payload').click();
	const payload = JSON.parse((await cancelCard.locator('pre').textContent())!);
	expect(payload).toMatchObject({
		event: 'appointment.canceled',
		data: {
			appointment_key: created.appointment_key,
			status: 'CANCELED',
			person: { full_name: evil },
		},
	});
});

it('with cancelRemoves, a cancel on the dashboard shows the API answer and that the appointment is gone', async () => {
	await adm.ok('POST', '/__sandbox/config/', { cancelRemoves: true });
	try {
		const a = await adm.ok('POST', '/__sandbox/appointments/', {
			person: { full_name: 'Rita Removed', email: 'rita@example.com' },
		});
		await page.goto(`${sb.url}/dashboard/appointments/${a.appointment_key}/cancel`);
		await page.getByRole('button', { name: 'Cancel appointment' }).click();
		await page.waitForURL(/\?done=/);
		expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
			'Canceled and removed',
		);
		expect(await page.getByRole('status').textContent()).toContain(
			`DELETE /api/v3/appointments/${a.appointment_key}/?send_email=true answered 200`,
		);
		expect(await words(page.locator('main p').last())).toContain(
			'The service removed this appointment after canceling it',
		);
		// without the action's result, the address is an unknown appointment like any other
		const again = await page.goto(`${sb.url}/dashboard/appointments/${a.appointment_key}/`);
		expect(again?.status()).toBe(404);
		expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Not found');
	} finally {
		await adm.ok('POST', '/__sandbox/config/', { cancelRemoves: false });
	}
});

it('the appointment list opens at today, as a calendar does; the earlier ones are a click away, and Today leads back', async () => {
	// a seed laid around the real time: today is what the browser's clock says
	const now = DateTime.now().setZone('America/Santiago');
	await adm.ok('POST', '/__sandbox/reset/', { seed: 200, now: now.toISO() });
	const today = now.toISODate()!;
	const yesterday = now.minus({ days: 1 }).toISODate()!;
	const fromToday = (await api.ok('GET', `/api/v3/appointments/?start_date=${today}&page_size=1`))
		.results[0];
	const earlier = (await api.ok('GET', `/api/v3/appointments/?end_date=${yesterday}&page_size=500`))
		.results;
	expect(earlier.length).toBeGreaterThan(25); // more than a page before today
	const startLinks = () =>
		page
			.locator('tbody tr')
			.evaluateAll((rows) => rows.map((r) => r.querySelector('td a')!.textContent!.trim()));

	await page
		.getByRole('navigation', { name: 'Main' })
		.getByRole('link', { name: 'Appointments' })
		.click();
	await page.waitForURL(`${sb.url}/dashboard/appointments/`);
	expect((await startLinks())[0]).toBe(shown(fromToday));
	expect(await words(page.locator('main > p.muted'))).toContain(
		`the list opens at today, ${now.setLocale('en-GB').toFormat('ccc d LLL yyyy')}`,
	);
	await page.getByRole('link', { name: '‹ Earlier' }).click();
	const before = await startLinks();
	expect(before.at(-1)).toBe(shown(earlier.at(-1)));
	expect(before).toHaveLength(25);
	await page.getByRole('link', { name: 'Today' }).click();
	expect((await startLinks())[0]).toBe(shown(fromToday));
	// a From date opens the list at that date
	await page.getByLabel('From').fill(now.minus({ days: 3 }).toISODate()!);
	await page.getByRole('button', { name: 'Filter' }).click();
	const first = (
		await api.ok(
			'GET',
			`/api/v3/appointments/?start_date=${now.minus({ days: 3 }).toISODate()}&page_size=1`,
		)
	).results[0];
	expect((await startLinks())[0]).toBe(shown(first));
	expect(await page.getByRole('link', { name: '‹ Earlier' }).count()).toBe(0);
});

it('Deliveries counts in words that agree with the number: 1 attempt, 2 attempts', async () => {
	await adm.ok('POST', '/__sandbox/reset/', { seed: 60 });
	await api.ok('POST', '/api/v3/webhooks/', {
		url: hook.url('/count'),
		events: ['appointment.created'],
	});
	const counts = async () => {
		await page.goto(`${sb.url}/dashboard/deliveries/`);
		return await words(page.locator('main > p.muted').first());
	};
	for (const [n, words] of [
		[1, '1 delivered · 0 given up · 1 attempt in all.'],
		[2, '2 delivered · 0 given up · 2 attempts in all.'],
	] as const) {
		await adm.ok('POST', '/__sandbox/appointments/', {});
		await pollUntil(`${n} deliveries`, async () =>
			(await adm.ok('GET', '/__sandbox/deliveries/?summary=true')).succeeded === n
				? true
				: undefined,
		);
		expect(await counts()).toContain(`0 pending · ${words}`);
	}
});

it('a failing callback shows each attempt, the next retry, then the final state', async () => {
	await adm.ok('POST', '/__sandbox/config/', { retrySchedule: [60_000] });
	const failing = await receiver(() => 503);
	try {
		const down = await api.ok('POST', '/api/v3/webhooks/', {
			url: failing.url('/down'),
			events: ['appointment.created'],
		});
		const attempted = (key: string) =>
			pollUntil('an attempt to the failing callback', async () =>
				(
					await adm.ok(
						'GET',
						`/__sandbox/deliveries/?appointment_key=${key}&webhook_key=${down.webhook_key}`,
					)
				).deliveries.length
					? true
					: undefined,
			);
		const a = await adm.ok('POST', '/__sandbox/appointments/', {
			person: { full_name: 'Retry Case', email: 'retry@example.com' },
		});
		await attempted(a.appointment_key);
		await page.goto(`${sb.url}/dashboard/deliveries/?appointment_key=${a.appointment_key}`);
		const card = page.getByRole('article', {
			name: `appointment.created to ${failing.url('/down')}`,
		});
		expect(await card.textContent()).toMatch(
			/retry scheduled[\s\S]*next retry \w{3} \d{1,2} \w{3} \d{4}, \d{2}:\d{2}:\d{2}[\s\S]*503 HTTP 503/,
		);
		// with no retry left, the first failure is final
		await adm.ok('POST', '/__sandbox/config/', { retrySchedule: [] });
		const b = await adm.ok('POST', '/__sandbox/appointments/', {
			person: { full_name: 'Given Up', email: 'gaveup@example.com' },
		});
		await attempted(b.appointment_key);
		await page.goto(`${sb.url}/dashboard/deliveries/?appointment_key=${b.appointment_key}`);
		const final = await page
			.getByRole('article', { name: `appointment.created to ${failing.url('/down')}` })
			.textContent();
		expect(final).toMatch(/given up[\s\S]*503 HTTP 503/);
		expect(final).not.toMatch(/next retry/);
	} finally {
		await failing.close();
	}
});

it('a cross-site form post without the CSRF token is refused and changes nothing', async () => {
	const evil = http.createServer((_req, res) => {
		res.setHeader('content-type', 'text/html');
		res.end(
			`<form method="post" action="${sb.url}${WEBHOOKS}new"><input name="url" value="https://evil.example/steal"><input name="events" value="appointment.created"></form><script>document.forms[0].submit()</script>`,
		);
	});
	await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
	try {
		const before = (await api.ok('GET', '/api/v3/webhooks/')).count;
		await page.goto(`http://127.0.0.1:${(evil.address() as AddressInfo).port}/`);
		await page.waitForURL(`${sb.url}${WEBHOOKS}new`);
		expect(await page.getByRole('alert').textContent()).toMatch(/missing or invalid CSRF token/);
		expect((await api.ok('GET', '/api/v3/webhooks/')).count).toBe(before);
		// and the same post from a signed-in page with a forged token
		const r = await page.request.post(`${sb.url}${WEBHOOKS}new`, {
			form: { _csrf: 'forged', url: 'https://evil.example/x', events: 'appointment.created' },
		});
		expect(r.status()).toBe(403);
		expect((await api.ok('GET', '/api/v3/webhooks/')).count).toBe(before);
	} finally {
		evil.close();
	}
});

it('signing out locks every page and every action', async () => {
	await page.goto(`${sb.url}/dashboard/appointments/`);
	const key = (await api.ok('GET', '/api/v3/appointments/?is_cancelled=false&page_size=1'))
		.results[0].appointment_key;
	await page.getByRole('button', { name: 'Sign out' }).click();
	await page.waitForURL(/\/dashboard\/login$/);
	for (const path of [
		'/dashboard/appointments/',
		`/dashboard/appointments/${key}/`,
		'/dashboard/appointments/new',
		WEBHOOKS,
		`${WEBHOOKS}new`,
		'/dashboard/deliveries/',
		'/dashboard/mailbox/',
		'/dashboard/settings/api/',
	]) {
		await page.goto(`${sb.url}${path}`);
		expect([path, new URL(page.url()).pathname]).toEqual([path, '/dashboard/login']);
	}
	const r = await page.request.post(`${sb.url}/dashboard/appointments/${key}/cancel`, {
		form: { send_email: 'true' },
	});
	expect(r.status()).toBe(401);
	expect((await adm.ok('GET', `/__sandbox/appointments/${key}/`)).is_cancelled).toBe(false);
	await signIn();
});
