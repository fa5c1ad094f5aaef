/**
 * The local mail sink: a real SMTP client (nodemailer, as n8n's Send Email node uses) sends to the sandbox's SMTP
 * port and the message is in GET /__sandbox/mailbox/ as the shared contract says; the service's cancellation email
 * lands there too; bounds, refusals, reset and shutdown.
 */
import net from 'node:net';
import nodemailer from 'nodemailer';

import { Mailbox } from '../../sandbox/mailbox';
import { readMailbox, smtpCredential, waitForMail, type MailMessage } from '../helpers/sandbox';
import { ADMIN, TOKEN, client, start, type Sandbox } from './helpers';

let sb: Sandbox;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);

beforeAll(async () => {
	sb = await start({ smtpPort: 0, seed: 40, now: '2026-11-23T09:00:00-03:00' });
});
afterAll(async () => {
	await sb?.close();
});
beforeEach(async () => {
	await adm.ok('DELETE', '/__sandbox/mailbox/');
});

/** A transport built from the credential's data the way n8n's Send Email node builds it. */
function transport(extra: Record<string, unknown> = {}) {
	const c = smtpCredential(sb);
	return nodemailer.createTransport({
		host: c.host,
		port: c.port,
		secure: c.secure,
		ignoreTLS: c.disableStartTls,
		...extra,
	});
}

it('a message sent over SMTP is in the mailbox with sender, envelope recipients, subject, text and HTML; newest first', async () => {
	const t = transport();
	await t.sendMail({
		from: 'Clínica Norte <bookings@example.com>',
		to: 'ana.rojas@example.com',
		cc: 'recepcion@example.com',
		bcc: 'audit@example.com',
		subject: 'Your agenda for today',
		text: 'Ana Rojas, 10:00',
		html: '<p>Ana Rojas, <b>10:00</b></p>',
	});
	await t.sendMail({
		from: 'bookings@example.com',
		to: 'diego@example.com',
		subject: 'Second',
		text: 'two',
	});
	const box = await readMailbox(sb.url, ADMIN);
	expect(box.map((m) => m.subject)).toEqual(['Second', 'Your agenda for today']);
	const first = box[1];
	expect(Object.keys(first).sort()).toEqual([
		'from',
		'html',
		'id',
		'received_at',
		'sent_by',
		'source',
		'subject',
		'text',
		'to',
	]);
	expect(first).toEqual<MailMessage>({
		id: expect.stringMatching(/^[0-9a-f-]{36}$/),
		from: 'Clínica Norte <bookings@example.com>',
		to: ['ana.rojas@example.com', 'recepcion@example.com', 'audit@example.com'],
		source: 'smtp',
		sent_by: 'Clínica Norte',
		subject: 'Your agenda for today',
		text: 'Ana Rojas, 10:00',
		html: '<p>Ana Rojas, <b>10:00</b></p>',
		received_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
	});
	expect(Date.now() - Date.parse(first.received_at)).toBeLessThan(60_000);
	expect(box[0].html).toBeNull();
	t.close();
});

it("each message says who sent it: the subject's [tag], else the From name, else the From address", async () => {
	const t = transport();
	const cases: Array<[from: string, subject: string, sentBy: string]> = [
		['bookings@example.com', '[Example 3] Canceled: Ana Rojas, Sat 28 Nov, 12:45', 'Example 3'],
		['Front desk <bookings@example.com>', ' [Example 4]Canceled: Ana', 'Example 4'],
		['Morning agenda <bookings@example.com>', 'Agenda for Sat 28 Nov', 'Morning agenda'],
		[
			'Morning agenda <bookings@example.com>',
			'Re: [Example 3] not a leading tag',
			'Morning agenda',
		],
		['bookings@example.com', '[] empty tag', 'bookings@example.com'],
		['bookings@example.com', 'No tag', 'bookings@example.com'],
	];
	for (const [from, subject] of cases)
		await t.sendMail({ from, to: 'x@example.com', subject, text: '.' });
	t.close();
	const box = (await readMailbox(sb.url, ADMIN)).reverse();
	expect(box.map((m) => [m.from, m.subject, m.sent_by])).toEqual(
		cases.map(([from, subject, sentBy]) => [
			from,
			subject.trim() === subject ? subject : expect.any(String),
			sentBy,
		]),
	);
	expect(box.every((m) => m.source === 'smtp')).toBe(true);
	await adm.ok('DELETE', '/__sandbox/mailbox/');
});

it('an HTML-only message gets its text from the HTML; a credential with a user and password is accepted too', async () => {
	const t = transport({ auth: { user: 'builder', pass: 'anything' } });
	await t.sendMail({
		from: 'bookings@example.com',
		to: 'ana@example.com',
		subject: 'HTML only',
		html: '<h1>Agenda</h1><p>10:00 Ana</p>',
	});
	const [m] = await readMailbox(sb.url, ADMIN);
	expect(m.subject).toBe('HTML only');
	expect(m.html?.trim()).toBe('<h1>Agenda</h1><p>10:00 Ana</p>');
	expect(m.text).toMatch(/AGENDA|Agenda/);
	expect(m.text).toContain('10:00 Ana');
	t.close();
});

it('DELETE empties the mailbox; both routes want the admin token', async () => {
	await transport().sendMail({
		from: 'a@example.com',
		to: 'b@example.com',
		subject: 'x',
		text: 'x',
	});
	expect(await readMailbox(sb.url, ADMIN)).toHaveLength(1);
	for (const method of ['GET', 'DELETE']) {
		const r = await api(method, '/__sandbox/mailbox/');
		expect(r.status).toBe(401);
	}
	expect(await readMailbox(sb.url, ADMIN)).toHaveLength(1);
	expect((await adm('DELETE', '/__sandbox/mailbox/')).status).toBe(204);
	expect(await readMailbox(sb.url, ADMIN)).toEqual([]);
});

it('a message over 1 MiB is refused with 552 and not kept; the mailbox keeps the newest maxMailboxMessages', async () => {
	await expect(
		transport().sendMail({
			from: 'a@example.com',
			to: 'b@example.com',
			subject: 'big',
			text: 'x'.repeat(1_100_000),
		}),
	).rejects.toMatchObject({ responseCode: 552 });
	expect(await readMailbox(sb.url, ADMIN)).toEqual([]);
	// the bound over SMTP, with 5 kept instead of the default 500 (500 SMTP messages took most of this file's time)
	const small = await start({ smtpPort: 0, seed: 1, maxMailboxMessages: 5 });
	try {
		// one connection: the messages arrive in the order they are sent
		const pool = nodemailer.createTransport({
			host: '127.0.0.1',
			port: small.smtpPort!,
			secure: false,
			pool: true,
			maxConnections: 1,
			maxMessages: Infinity,
		});
		await Promise.all(
			Array.from({ length: 10 }, (_, i) =>
				pool.sendMail({
					from: 'a@example.com',
					to: 'b@example.com',
					subject: `n${i}`,
					text: String(i),
				}),
			),
		);
		pool.close();
		const box = await readMailbox(small.url, small.adminToken);
		expect(box.map((m) => m.subject)).toEqual(Array.from({ length: 5 }, (_, i) => `n${9 - i}`));
	} finally {
		await small.close();
	}
});

it('by default the mailbox keeps the newest 500 messages', () => {
	const box = new Mailbox();
	for (let i = 0; i < 505; i++)
		box.add({
			from: 'a@example.com',
			to: ['b@example.com'],
			source: 'smtp',
			sent_by: 'a@example.com',
			subject: `n${i}`,
			text: String(i),
			html: null,
		});
	expect(box.list().map((m) => m.subject)).toEqual(
		Array.from({ length: 500 }, (_, i) => `n${504 - i}`),
	);
});

it('maxMailboxMessages below 1 is refused at start', async () => {
	await expect(start({ seed: 1, maxMailboxMessages: 0 })).rejects.toThrow(
		'Invalid sandbox option maxMailboxMessages: expected an integer >= 1',
	);
});

it('DELETE of an appointment with send_email=true puts the service cancellation email to the client in the mailbox; without it, none', async () => {
	const [a, b] = (await api.ok('GET', '/api/v3/appointments/?is_cancelled=false&page_size=2'))
		.results;
	await api.ok('DELETE', `/api/v3/appointments/${a.appointment_key}/?send_email=false`);
	expect(await readMailbox(sb.url, ADMIN)).toEqual([]);
	await api.ok('DELETE', `/api/v3/appointments/${b.appointment_key}/?send_email=true`);
	const m = await waitForMail(sb.url, ADMIN, (x) => x.to.includes(b.person.email));
	expect(m.from).toBe('Citaflow <no-reply@citaflow.example>');
	expect(m).toMatchObject({ source: 'service', sent_by: 'Citaflow' });
	expect(m.to).toEqual([b.person.email]);
	expect(m.subject).toMatch(
		/^Your appointment on \w{3} \d{1,2} \w{3} 2026, \d{2}:\d{2} was canceled$/,
	);
	expect(m.text).toContain(`Hello ${b.person.full_name},`);
	expect(m.text).toContain(`Booking code: ${b.search_code}`);
	expect(m.text).toContain(b.calendar.name);
	// a repeated DELETE is idempotent: no second email
	await api.ok('DELETE', `/api/v3/appointments/${b.appointment_key}/?send_email=true`);
	expect(await readMailbox(sb.url, ADMIN)).toHaveLength(1);
	// reset empties it, as it does the rest of the sandbox's state
	await adm.ok('POST', '/__sandbox/reset/', {});
	expect(await readMailbox(sb.url, ADMIN)).toEqual([]);
});

it('without smtpPort no SMTP server runs; close() stops the one that does', async () => {
	const plain = await start({ seed: 1 });
	try {
		expect(plain.smtpPort).toBeUndefined();
	} finally {
		await plain.close();
	}
	const other = await start({ seed: 1, smtpPort: 0 });
	const port = other.smtpPort!;
	await nodemailer
		.createTransport({ host: '127.0.0.1', port, secure: false })
		.sendMail({ from: 'a@example.com', to: 'b@example.com', subject: 's', text: 't' });
	await other.close();
	const refused = await new Promise<string>((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.on('connect', () => {
			socket.destroy();
			resolve('connected');
		});
		socket.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
	});
	expect(refused).toBe('ECONNREFUSED');
});
