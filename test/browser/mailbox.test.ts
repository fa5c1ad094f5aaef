/**
 * The dashboard's Mailbox in a real browser: a message sent over SMTP (nodemailer, as n8n's Send Email node sends)
 * shows in the list and on its page; hostile HTML and subjects stay inert (escaped text, an iframe sandboxed
 * without permissions, a CSP without scripts); the service's cancellation email; Empty mailbox.
 */
import { DateTime } from 'luxon';
import nodemailer from 'nodemailer';
import type { Browser, Page } from 'playwright-core';

import { launchBrowser } from '../../scripts/browser';
import { readMailbox, smtpCredential } from '../helpers/sandbox';
import { ADMIN, TOKEN, client, start, type Sandbox } from '../sandbox/helpers';

jest.setTimeout(120_000);

let sb: Sandbox;
let browser: Browser;
let page: Page;
const api = client(() => sb.url, TOKEN);

beforeAll(async () => {
	sb = await start({ seed: 30, smtpPort: 0, now: '2026-11-23T09:00:00-03:00' });
	browser = await launchBrowser();
	page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
	page.on('dialog', (d) => {
		throw new Error(`a dialog opened: ${d.message()}`);
	});
	await page.goto(`${sb.url}/dashboard/login?next=%2Fdashboard%2Fmailbox%2F`);
	await page.getByLabel('Admin token').fill(ADMIN);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.waitForURL(/\/dashboard\/mailbox\/$/);
});
afterAll(async () => {
	await browser?.close();
	await sb?.close();
});

function send(mail: nodemailer.SendMailOptions) {
	const c = smtpCredential(sb);
	const t = nodemailer.createTransport({
		host: c.host,
		port: c.port,
		secure: c.secure,
		ignoreTLS: c.disableStartTls,
	});
	return t.sendMail(mail).finally(() => t.close());
}

it('a delivered message shows in the list (received, from, to, subject) and on its page with its text and HTML', async () => {
	expect(await page.getByText('No emails yet.').count()).toBe(1);
	await send({
		from: 'Clínica Norte <bookings@example.com>',
		to: 'recepcion@example.com',
		subject: 'Agenda for Tue 24 Nov 2026',
		text: '10:00 Ana Rojas (Box 1)\n10:30 Diego Soto (Box 2)',
		html: '<h1 style="color:#0b57d0">Agenda</h1><ul><li>10:00 Ana Rojas (Box 1)</li><li>10:30 Diego Soto (Box 2)</li></ul>',
	});
	const [m] = await readMailbox(sb.url, ADMIN);
	await page.reload();
	const row = page.getByRole('row', { name: /Agenda for Tue 24 Nov 2026/ });
	const received = DateTime.fromISO(m.received_at)
		.setZone('America/Santiago')
		.setLocale('en-GB')
		.toFormat('ccc d LLL yyyy, HH:mm:ss');
	expect(await row.getByRole('cell').allInnerTexts()).toEqual([
		received,
		'Clínica Norte\nClínica Norte <bookings@example.com>',
		'recepcion@example.com',
		'Agenda for Tue 24 Nov 2026',
	]);
	expect(await page.locator('main').innerText()).toContain('Times in America/Santiago.');
	expect(await page.locator('main').textContent()).toContain(`SMTP at 127.0.0.1:${sb.smtpPort}`);

	await row.getByRole('link', { name: 'Agenda for Tue 24 Nov 2026' }).click();
	await page.waitForURL(`${sb.url}/dashboard/mailbox/${m.id}/`);
	expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
		'Agenda for Tue 24 Nov 2026',
	);
	expect(await page.getByRole('row', { name: /^From/ }).innerText()).toBe(
		'From\tClínica Norte <bookings@example.com>',
	);
	expect(await page.getByRole('row', { name: /^Sent by/ }).innerText()).toBe(
		'Sent by\tClínica Norte',
	);
	expect(await page.getByLabel('Text of the email').textContent()).toBe(
		'10:00 Ana Rojas (Box 1)\n10:30 Diego Soto (Box 2)',
	);
	const frame = page.frameLocator('iframe[title="HTML of the email"]');
	expect(await frame.getByRole('listitem').allTextContents()).toEqual([
		'10:00 Ana Rojas (Box 1)',
		'10:30 Diego Soto (Box 2)',
	]);
	// the email's own inline style applies inside its frame
	expect(
		await frame
			.getByRole('heading', { name: 'Agenda' })
			.evaluate((h) => (globalThis as any).getComputedStyle(h).color),
	).toBe('rgb(11, 87, 208)');
	// breadcrumbs lead back
	await page
		.getByRole('navigation', { name: 'Breadcrumb' })
		.getByRole('link', { name: 'Mailbox' })
		.click();
	await page.waitForURL(`${sb.url}/dashboard/mailbox/`);
});

it('hostile HTML stays inert: no script runs, nothing remote loads, the subject is text', async () => {
	const evil = '<img src=x onerror=alert(1)>Hi';
	await send({
		from: 'x@example.com',
		to: 'y@example.com',
		subject: evil,
		text: 'plain',
		html: `<p id="p">body</p><script>document.getElementById('p').textContent='script ran';parent.document.title='pwned'</script><img src="http://127.0.0.1:${new URL(sb.url).port}/__sandbox/config/" onerror="document.getElementById('p').textContent='onerror ran'"><form action="https://evil.example/"><button>Go</button></form>`,
	});
	const [m] = await readMailbox(sb.url, ADMIN);
	await page.goto(`${sb.url}/dashboard/mailbox/`);
	expect(await page.getByRole('link', { name: evil }).count()).toBe(1);
	expect(await page.locator('main img, main script').count()).toBe(0);
	await page.getByRole('link', { name: evil }).click();
	expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(evil);
	const iframe = page.locator('iframe[title="HTML of the email"]');
	expect(await iframe.getAttribute('sandbox')).toBe('');
	const frame = page.frameLocator('iframe[title="HTML of the email"]');
	await frame.locator('#p').waitFor();
	expect(await frame.locator('#p').textContent()).toBe('body');
	expect(await page.title()).not.toBe('pwned');
	// served on its own URL with a CSP of its own: no script, no remote content, a sandbox, framed only by the dashboard
	const r = await page.request.get(`${sb.url}/dashboard/mailbox/${m.id}/html`);
	const csp = r.headers()['content-security-policy'];
	expect(csp).toMatch(/default-src 'none'/);
	expect(csp).toMatch(/(^|; )sandbox(;|$)/);
	expect(csp).not.toMatch(/script-src/);
	expect(csp).toMatch(/frame-ancestors 'self'/);
});

it("Sent by tells look-alike messages apart: a workflow by its subject's [tag] or From name, the service's own as the service", async () => {
	const a = (await api.ok('GET', '/api/v3/appointments/?is_cancelled=false&page_size=1'))
		.results[0];
	for (const tag of ['Example 3', 'Example 4'])
		await send({
			from: 'bookings@example.com',
			to: 'recepcion@example.com',
			subject: `[${tag}] Canceled: Ana Rojas, Sat 28 Nov, 12:45`,
			text: 'Canceled.',
		});
	await send({
		from: 'Morning agenda <bookings@example.com>',
		to: 'recepcion@example.com',
		subject: 'Agenda for Sat 28 Nov',
		text: '.',
	});
	await api.ok('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=true`);
	await page.goto(`${sb.url}/dashboard/mailbox/`);
	const sentBy = async (subject: RegExp) =>
		(await page.getByRole('row', { name: subject }).getByRole('cell').nth(1).innerText()).trim();
	expect(await sentBy(/\[Example 3\] Canceled/)).toBe('Example 3\nbookings@example.com');
	expect(await sentBy(/\[Example 4\] Canceled/)).toBe('Example 4\nbookings@example.com');
	expect(await sentBy(/Agenda for Sat 28 Nov/)).toBe(
		'Morning agenda\nMorning agenda <bookings@example.com>',
	);
	expect(await sentBy(/Your appointment on/)).toBe(
		'the service Citaflow <no-reply@citaflow.example>',
	);
	await page.getByRole('link', { name: /^Your appointment on/ }).click();
	expect(await page.getByRole('row', { name: /^Sent by/ }).innerText()).toBe(
		'Sent by\tthe service',
	);
});

it("an appointment canceled with email shows the service's email in the Mailbox; Empty mailbox empties it", async () => {
	const a = (await api.ok('GET', '/api/v3/appointments/?is_cancelled=false&page_size=1'))
		.results[0];
	await page.goto(`${sb.url}/dashboard/appointments/${a.appointment_key}/`);
	await page.getByRole('link', { name: 'Cancel appointment…' }).click();
	await page.getByRole('button', { name: 'Cancel appointment' }).click();
	await page.getByRole('link', { name: 'See it in the mailbox' }).click();
	const row = page.getByRole('row', { name: new RegExp(a.person.email) });
	expect(await row.textContent()).toMatch(
		/Citaflow <no-reply@citaflow\.example>[\s\S]*Your appointment on \w{3} \d{1,2} \w{3} 2026, \d{2}:\d{2} was canceled/,
	);
	await row.getByRole('link').click();
	expect(await page.getByLabel('Text of the email').textContent()).toContain(
		`Booking code: ${a.search_code}`,
	);
	expect(await page.locator('iframe').count()).toBe(0); // a text-only email has no HTML frame

	await page.goto(`${sb.url}/dashboard/mailbox/`);
	await page.getByRole('button', { name: 'Empty mailbox' }).click();
	await page.waitForURL(/notice=emptied/);
	expect(await page.getByText('No emails yet.').count()).toBe(1);
	expect(await readMailbox(sb.url, ADMIN)).toEqual([]);
});
