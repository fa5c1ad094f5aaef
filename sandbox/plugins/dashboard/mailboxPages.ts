/**
 * Mailbox: what the local mail sink received (and the service's own cancellation emails), newest first, and one
 * message with its text. A message's HTML is served on its own URL with a CSP that forbids scripts, remote
 * content and forms, and shown in an iframe sandboxed without any permission: it is never put into a page.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';

import { formatHuman } from '../../dateTimes';
import type { MailMessage } from '../../mailbox';
import { crumbs, csrfInput, html } from './html';

const BASE = '/dashboard/mailbox/';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HTML_CSP =
	"default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; sandbox; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

/** Who sent it: the service's own e-mail marked so; a workflow's by its subject's [tag], From name or address. */
const sender = (m: MailMessage) =>
	m.source === 'service'
		? html`<span class="pill wait">the service</span> <span class="muted">${m.from}</span>`
		: m.sent_by === m.from
			? m.from
			: html`<strong>${m.sent_by}</strong><br /><span class="muted">${m.from}</span>`;

export async function mailboxPages(app: FastifyInstance) {
	const s = app.sandbox;
	const when = (m: MailMessage) => formatHuman(Date.parse(m.received_at), s.cfg.timeZone, true);
	const find = (id: string) => (UUID.test(id) ? s.mailbox.get(id) : undefined);
	const missing = (reply: FastifyReply) =>
		reply.page(
			{
				title: 'Not found',
				section: 'mailbox',
				body: html`${crumbs([['Mailbox', BASE]], 'Not found')}
					<h1>Not found</h1>
					<p>No such message; the mailbox keeps the latest 500. <a href="${BASE}">Mailbox</a></p>`,
			},
			404,
		);

	app.get('/mailbox/', async (req, reply) => {
		const notice = (req.query as { notice?: string }).notice;
		const list = s.mailbox.list();
		const port = s.smtpPort;
		return reply.page({
			title: 'Mailbox',
			section: 'mailbox',
			body: html`<h1>Mailbox</h1>
				${notice === 'emptied' ? html`<p class="notice" role="status">Mailbox emptied.</p>` : ''}
				<p class="muted">
					${port === undefined
						? 'The mail sink is off (start the sandbox with an SMTP port).'
						: html`Emails sent to the local mail sink (SMTP at <code>${s.smtpHost}:${port}</code>,
								no TLS, no password) and the service's own emails to clients. Nothing leaves this
								machine. <em>Sent by</em> names the workflow by the subject's leading [tag], else
								the From name or address.`}
					Times in ${s.cfg.timeZone}.
				</p>
				${list.length
					? html`<form class="bar" method="post" action="${BASE}empty">
								${csrfInput(reply.csrfToken())}<button type="submit">Empty mailbox</button>
							</form>
							<table>
								<caption>
									${list.length} message${list.length === 1 ? '' : 's'}
								</caption>
								<thead>
									<tr>
										<th scope="col">Received</th>
										<th scope="col">Sent by</th>
										<th scope="col">To</th>
										<th scope="col">Subject</th>
									</tr>
								</thead>
								<tbody>
									${list.map(
										(m) =>
											html`<tr>
												<td class="nowrap">${when(m)}</td>
												<td>${sender(m)}</td>
												<td>${m.to.join(', ')}</td>
												<td><a href="${BASE}${m.id}/">${m.subject || '(no subject)'}</a></td>
											</tr>`,
									)}
								</tbody>
							</table>`
					: html`<p class="card muted">
							No emails yet. Run a workflow that sends one with the Local mail sink credential, or
							cancel an appointment with <em>Send email to client</em>.
						</p>`}`,
		});
	});

	app.get('/mailbox/:id/', async (req, reply) => {
		const m = find((req.params as { id: string }).id);
		if (!m) return missing(reply);
		return reply.page({
			title: m.subject || 'Message',
			section: 'mailbox',
			body: html`${crumbs([['Mailbox', BASE]], m.subject || '(no subject)')}
				<h1>${m.subject || '(no subject)'}</h1>
				<table>
					<tbody>
						<tr>
							<th scope="row">Sent by</th>
							<td>
								${m.source === 'service'
									? html`<span class="pill wait">the service</span>`
									: m.sent_by}
							</td>
						</tr>
						<tr>
							<th scope="row">From</th>
							<td>${m.from}</td>
						</tr>
						<tr>
							<th scope="row">To</th>
							<td>${m.to.join(', ')}</td>
						</tr>
						<tr>
							<th scope="row">Received</th>
							<td>${when(m)} <span class="muted">(${s.cfg.timeZone})</span></td>
						</tr>
					</tbody>
				</table>
				${m.html !== null
					? html`<h2>HTML</h2>
							<iframe
								class="mail"
								title="HTML of the email"
								sandbox
								src="${BASE}${m.id}/html"
								referrerpolicy="no-referrer"
							></iframe>`
					: ''}
				<h2>Text</h2>
				<pre class="mail" aria-label="Text of the email">${m.text || '(empty)'}</pre>`,
		});
	});

	app.get('/mailbox/:id/html', async (req, reply) => {
		const m = find((req.params as { id: string }).id);
		if (!m || m.html === null) return missing(reply);
		return reply
			.header('content-security-policy', HTML_CSP)
			.type('text/html; charset=utf-8')
			.send(m.html);
	});

	app.post('/mailbox/empty', async (_req, reply) => {
		s.mailbox.clear();
		return reply.redirect(`${BASE}?notice=emptied`, 303);
	});
}
