/**
 * The local mail sink: a real SMTP server (smtp-server) on the sandbox's host whose messages, parsed with
 * mailparser, land in a bounded in-memory mailbox, next to the service's own e-mails (cancellations). Read through
 * GET /__sandbox/mailbox/ and the dashboard's Mailbox page. No relay: nothing ever leaves the machine.
 */
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

import { PRODUCT } from './product';

export interface MailMessage {
	id: string;
	/** The From header's first sender (`Name <address>`, or the address alone), else the envelope sender. */
	from: string;
	/** The envelope recipients (every address the message was delivered to, Bcc included). */
	to: string[];
	/** `service`: the service's own e-mail; `smtp`: received by the mail sink (a workflow's Send Email node). */
	source: 'service' | 'smtp';
	/** Who sent it, to tell look-alike messages apart: see sentBy(); the product's name for the service's own. */
	sent_by: string;
	subject: string;
	text: string;
	html: string | null;
	received_at: string;
}

/** Largest message the sink accepts (SMTP SIZE); larger ones are refused with 552. */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
/** The mailbox keeps the newest messages within both bounds (the count: the `maxMailboxMessages` option). */
export const MAX_MESSAGES = 500;
export const MAX_MAILBOX_BYTES = 64 * 1024 * 1024;

export class Mailbox {
	/** Oldest first. */
	private messages: Array<{ m: MailMessage; size: number }> = [];
	private bytes = 0;

	constructor(readonly maxMessages = MAX_MESSAGES) {}

	add(m: Omit<MailMessage, 'id' | 'received_at'>): MailMessage {
		const message: MailMessage = {
			id: crypto.randomUUID(),
			...m,
			received_at: new Date().toISOString(),
		};
		const size =
			2 *
				(message.from.length +
					message.subject.length +
					message.text.length +
					(message.html?.length ?? 0) +
					message.sent_by.length +
					message.to.join().length) +
			200;
		this.messages.push({ m: message, size });
		this.bytes += size;
		while (
			this.messages.length > 1 &&
			(this.messages.length > this.maxMessages || this.bytes > MAX_MAILBOX_BYTES)
		)
			this.bytes -= this.messages.shift()!.size;
		return message;
	}

	/** Newest first. */
	list(): MailMessage[] {
		return this.messages.map((x) => x.m).reverse();
	}

	get(id: string): MailMessage | undefined {
		return this.messages.find((x) => x.m.id === id)?.m;
	}

	clear() {
		this.messages = [];
		this.bytes = 0;
	}
}

export interface MailSink {
	port: number;
	close(): Promise<void>;
}

/**
 * Which workflow sent a message, as far as the message tells: n8n's Send Email node sets no header of its own, so
 * the subject's leading `[tag]` (the examples name themselves so: "[Example 3] Canceled: …"), else the From name,
 * else the From address.
 */
export function sentBy(subject: string, fromName: string | undefined, fromAddress: string): string {
	const tag = /^\s*\[([^\]\n]{1,80})\]/.exec(subject)?.[1].trim();
	return tag || fromName?.trim() || fromAddress || '(unknown)';
}

/** Starts the SMTP server: no TLS, any or no authentication, every recipient accepted. */
export async function startMailSink(
	mailbox: Mailbox,
	host: string,
	port: number,
): Promise<MailSink> {
	const server = new SMTPServer({
		banner: `${PRODUCT} local mail sink (sandbox; nothing is relayed)`,
		size: MAX_MESSAGE_BYTES,
		// The credential a builder imports has no user and no TLS; one with a user and password works as well.
		authOptional: true,
		allowInsecureAuth: true,
		disabledCommands: ['STARTTLS'],
		logger: false,
		maxClients: 100,
		closeTimeout: 2000,
		onAuth: (auth, _session, callback) => callback(null, { user: auth.username ?? 'anonymous' }),
		onData(stream, session, callback) {
			const chunks: Buffer[] = [];
			let length = 0;
			stream.on('data', (c: Buffer) => {
				length += c.length;
				if (length <= MAX_MESSAGE_BYTES) chunks.push(c);
			});
			stream.on('end', () => {
				if (stream.sizeExceeded || length > MAX_MESSAGE_BYTES) {
					return callback(
						Object.assign(
							new Error(`Message too large for the mail sink (limit ${MAX_MESSAGE_BYTES} bytes)`),
							{ responseCode: 552 },
						),
					);
				}
				simpleParser(Buffer.concat(chunks), { skipImageLinks: true }).then(
					(mail) => {
						const sender = mail.from?.value[0];
						const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
						const from = sender?.address
							? sender.name
								? `${sender.name} <${sender.address}>`
								: sender.address
							: envelopeFrom;
						const subject = mail.subject ?? '';
						const stored = mailbox.add({
							from,
							to: session.envelope.rcptTo.map((r) => r.address),
							source: 'smtp',
							sent_by: sentBy(subject, sender?.name, sender?.address || envelopeFrom),
							subject,
							text: mail.text ?? '',
							html: typeof mail.html === 'string' ? mail.html : null,
						});
						callback(null, `Stored in the sandbox mailbox as ${stored.id}`);
					},
					(e: Error) =>
						callback(
							Object.assign(new Error(`Could not parse the message: ${e.message}`), {
								responseCode: 554,
							}),
						),
				);
			});
		},
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	// A client's broken connection must not crash the sandbox.
	server.on('error', () => undefined);
	return {
		port: (server.server.address() as AddressInfo).port,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** The service's cancellation e-mail to the client, as the spec says the service sends one (`send_email=true`). */
export function cancellationMessage(
	a: {
		person: { full_name: string; email: string };
		calendar: { name: string };
		search_code: string;
	},
	when: string,
	zone: string,
) {
	return {
		from: `${PRODUCT} <no-reply@citaflow.example>`,
		to: [a.person.email],
		source: 'service' as const,
		sent_by: PRODUCT,
		subject: `Your appointment on ${when} was canceled`,
		text: [
			`Hello ${a.person.full_name},`,
			'',
			`Your appointment with ${a.calendar.name} on ${when} (${zone}) was canceled.`,
			`Booking code: ${a.search_code}`,
			'',
			'To book a new time, use the link in your original confirmation or contact us.',
			'',
			`${PRODUCT}, on behalf of your provider`,
		].join('\n'),
		html: null,
	};
}
