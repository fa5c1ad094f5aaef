/**
 * The dashboard as a builder meets it after `npm run dev`: the seeded demo account (seed 300, seed value 1),
 * its Trigger's subscription, a few events delivered, the morning agenda in the Mailbox. Each page is checked for
 * what it shows; `npm run screenshots` (UPDATE_SCREENSHOTS=1) also saves it as docs/screenshots/dashboard-*.png,
 * after the page has settled (fonts loaded, no animation: reduced motion).
 */
import { DateTime } from 'luxon';
import nodemailer from 'nodemailer';
import type { Browser, Page } from 'playwright-core';

import { launchBrowser, screenshot } from '../../scripts/browser';
import { readMailbox, smtpCredential } from '../helpers/sandbox';
import {
	ADMIN,
	TOKEN,
	client,
	pollUntil,
	receiver,
	selfSigned,
	start,
	type Sandbox,
} from '../sandbox/helpers';

jest.setTimeout(180_000);

const ZONE = 'America/Santiago';
/** The seed is laid around the real time, as in `npm run dev`, so the times of events and emails agree with it. */
const today = () => DateTime.now().setZone(ZONE).toISODate()!;
let sb: Sandbox;
let browser: Browser;
let page: Page;
let hook: Awaited<ReturnType<typeof receiver>>;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);

/** What a picture must never show: test names, markup as text, raw ISO times (JSON shown as JSON aside). */
async function looksReal(p: Page) {
	const text = (await p.locator('main').textContent())!;
	expect(text).not.toMatch(/<script|alert\(|Editor Test|Retry Case|xss|sbx-test/i);
	const prose = (await p.evaluate(
		"(() => { const m = document.querySelector('main').cloneNode(true); m.querySelectorAll('pre').forEach((e) => e.remove()); return m.textContent; })()",
	)) as string;
	expect(prose).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/);
}

async function settle(p: Page, name: string) {
	await p.waitForLoadState('networkidle');
	await p.evaluate('document.fonts.ready');
	await looksReal(p);
	await screenshot(p, name);
}

/** The morning agenda email the example workflow sends: today's appointments from the API. */
async function sendAgenda() {
	const day = DateTime.now().setZone(ZONE);
	const list = (
		await api.ok(
			'GET',
			`/api/v3/appointments/?start_date=${day.toISODate()}&end_date=${day.toISODate()}&status=CONFIRMED&page_size=8`,
		)
	).results as any[];
	const rows = list.map((a) => [
		DateTime.fromISO(a.start_date).setZone(ZONE).toFormat('HH:mm'),
		a.person.full_name,
		a.calendar.name,
	]);
	const c = smtpCredential(sb);
	const t = nodemailer.createTransport({
		host: c.host,
		port: c.port,
		secure: c.secure,
		ignoreTLS: c.disableStartTls,
	});
	await t.sendMail({
		from: 'Morning agenda <bookings@example.com>',
		to: 'recepcion@clinica.example',
		subject: `Agenda for ${day.setLocale('en-GB').toFormat('ccc d LLL yyyy')}: ${rows.length} confirmed appointments`,
		text: [
			'Good morning! Today’s confirmed appointments:',
			'',
			...rows.map((r) => `${r[0]}  ${r[1]} (${r[2]})`),
		].join('\n'),
		html: `<div style="font-family:Arial,sans-serif;color:#1f2328"><h2 style="margin:0 0 8px">Good morning!</h2><p>Today’s confirmed appointments:</p><table style="border-collapse:collapse">${rows
			.map(
				(r) =>
					`<tr><td style="padding:4px 12px 4px 0;font-weight:bold">${r[0]}</td><td style="padding:4px 12px 4px 0">${r[1]}</td><td style="padding:4px 0;color:#57606a">${r[2]}</td></tr>`,
			)
			.join(
				'',
			)}</table><p style="color:#57606a;font-size:12px">Sent by your n8n workflow “Morning agenda”.</p></div>`,
	});
	t.close();
	return rows.length;
}

beforeAll(async () => {
	hook = await receiver();
	sb = await start({ seed: 300, seedValue: 1, smtpPort: 0, ca: selfSigned().cert });
	browser = await launchBrowser();
	page = await (
		await browser.newContext({
			viewport: { width: 1280, height: 800 },
			reducedMotion: 'reduce',
			locale: 'en-GB',
		})
	).newPage();
});
afterAll(async () => {
	await browser?.close();
	await sb?.close();
	await hook?.close();
});

it('sign-in, Appointments, Settings › Integrations › Webhooks and API access of the demo account', async () => {
	await page.goto(`${sb.url}/dashboard/login`);
	await settle(page, 'dashboard-sign-in');
	await page.getByLabel('Admin token').fill(ADMIN);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.waitForURL(/\/dashboard\/appointments\/$/);
	// the list opens at today: a full page of the demo account's coming appointments
	const first = (await api.ok('GET', `/api/v3/appointments/?start_date=${today()}&page_size=1`))
		.results[0];
	expect(await page.getByRole('row').count()).toBe(26);
	expect(await page.getByRole('row').nth(1).getByRole('link').textContent()).toBe(
		DateTime.fromISO(first.start_date)
			.setZone(ZONE)
			.setLocale('en-GB')
			.toFormat('ccc d LLL yyyy, HH:mm'),
	);
	await settle(page, 'dashboard-appointments');

	// the subscription n8n's Appointments Trigger makes when its workflow is published
	await api.ok('POST', '/api/v3/webhooks/', {
		url: hook.url('/webhook/8c2f4e1a-6b7d-4c3e-9f10-2a5b7c9d1e3f/webhook'),
		events: ['appointment.created', 'appointment.updated', 'appointment.canceled'],
	});
	await page
		.getByRole('navigation', { name: 'Main' })
		.getByRole('link', { name: 'Settings' })
		.click();
	await page.getByRole('link', { name: /^Integrations › Webhooks/ }).click();
	expect(await page.getByRole('row').count()).toBe(2);
	await settle(page, 'dashboard-webhooks');
	await page.getByRole('link', { name: 'Add webhook' }).click();
	await page.getByLabel('Callback URL').fill('http://n8n.clinica.example/webhook/agenda');
	await page.getByRole('button', { name: 'Save' }).click();
	expect(await page.locator('#f-url-error').textContent()).toMatch(/must use HTTPS/);
	await settle(page, 'dashboard-webhook-errors');

	await page
		.getByRole('navigation', { name: 'Breadcrumb' })
		.getByRole('link', { name: 'Settings' })
		.click();
	await page.getByRole('link', { name: /^API access/ }).click();
	expect(await page.getByLabel('Access token', { exact: true }).getAttribute('type')).toBe(
		'password',
	);
	await settle(page, 'dashboard-api-access');
});

it('an appointment canceled with email, the Deliveries, the Mailbox with the morning agenda', async () => {
	const [updated, canceled] = (
		await api.ok('GET', `/api/v3/appointments/?start_date=${today()}&status=CONFIRMED&page_size=2`)
	).results;
	await api.ok('PATCH', `/api/v3/appointments/${updated.appointment_key}/`, { status: 'ATTENDED' });
	await adm.ok('POST', '/__sandbox/appointments/', {
		person: { full_name: 'Valentina Fuentes Araya', email: 'valentina.fuentes@example.com' },
		start_date: `${DateTime.now().setZone(ZONE).plus({ days: 2 }).toISODate()}T11:30:00`,
	});
	await page.goto(`${sb.url}/dashboard/appointments/${canceled.appointment_key}/`);
	await page.getByRole('link', { name: 'Cancel appointment…' }).click();
	await page.getByRole('button', { name: 'Cancel appointment' }).click();
	expect(await page.getByRole('status').textContent()).toMatch(
		/answered 200[\s\S]*Notifications queued: 1/,
	);
	await settle(page, 'dashboard-appointment');

	await pollUntil('the deliveries to settle', async () => {
		const d = await adm.ok('GET', '/__sandbox/deliveries/?summary=true');
		return d.pending === 0 && d.succeeded === 3 ? true : undefined;
	});
	await page
		.getByRole('navigation', { name: 'Main' })
		.getByRole('link', { name: 'Deliveries' })
		.click();
	expect(await page.getByRole('article').count()).toBe(3);
	await page.getByRole('article').first().getByText('JSON payload').click();
	await settle(page, 'dashboard-deliveries');

	const n = await sendAgenda();
	expect(n).toBeGreaterThan(3);
	const box = await readMailbox(sb.url, ADMIN);
	expect(box.map((m) => m.to[0])).toEqual(['recepcion@clinica.example', canceled.person.email]);
	await page
		.getByRole('navigation', { name: 'Main' })
		.getByRole('link', { name: 'Mailbox' })
		.click();
	expect(await page.getByRole('row').count()).toBe(3);
	await settle(page, 'dashboard-mailbox');
	await page.getByRole('link', { name: /^Agenda for / }).click();
	expect(await page.frameLocator('iframe').getByRole('row').count()).toBe(n);
	await looksReal(page); // the message page's picture is journey-3-agenda-email (test/e2e/journey.test.ts)
});
