/**
 * One appointment: its record and the API's actions on it (change status, reschedule, cancel after a confirmation
 * page), each showing what the API answered and which notifications it queued. A done action redirects to the
 * appointment's page with its result (post, redirect, get), so a reload never sends it again.
 */
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { DateTime } from 'luxon';

import { formatHuman } from '../../dateTimes';
import { cancel, changeStatus, reschedule, type Outcome } from '../../operations';
import { STATUSES, UUID_RE, type Appointment } from '../../vocabulary';
import type { SandboxState } from '../../sandboxState';
import { crumbs, csrfInput, field, html, select, type Html } from './html';

export interface Done {
	/** the API call it corresponds to, e.g. "PATCH /api/v3/appointments/{key}/" */
	call: string;
	outcome: Outcome;
	/** the form's input and errors, to show again next to its field */
	errors?: Record<string, string[]>;
	input?: Record<string, string>;
}

/** The results of done actions, by a random id in the redirect's URL; the last few per sandbox. */
const results = new WeakMap<SandboxState, Map<string, { key: string; done: Done }>>();
const KEPT_RESULTS = 50;

/** Redirects to the appointment's page showing `done` (303: the browser then GETs it). */
export function showResult(
	app: FastifyInstance,
	reply: FastifyReply,
	key: string,
	done: Done,
): FastifyReply {
	let kept = results.get(app.sandbox);
	if (!kept) results.set(app.sandbox, (kept = new Map()));
	const id = crypto.randomBytes(9).toString('base64url');
	kept.set(id, { key, done });
	if (kept.size > KEPT_RESULTS) kept.delete(kept.keys().next().value as string);
	return reply.redirect(`/dashboard/appointments/${key}/?done=${id}`, 303);
}

function resultPanel(d: Done): Html {
	const o = d.outcome;
	const ok = o.status < 300;
	const text =
		o.raw !== undefined ? o.raw.toString() : o.body !== undefined ? JSON.stringify(o.body) : '';
	let pretty = text;
	try {
		pretty = text ? JSON.stringify(JSON.parse(text), null, 2) : '(no body)';
	} catch {
		/* shown as is */
	}
	return html`<section class="notice${ok ? '' : ' bad'}" role="status" aria-labelledby="result-title"><h2 id="result-title">Result</h2>
<p><code>${d.call}</code> answered <strong>${o.status}</strong>.</p>
<details${ok ? '' : ' open'}><summary>Response body</summary><pre>${pretty}</pre></details>
<p>Notifications queued: <strong>${o.queued.length}</strong>${o.queued.length ? '' : ' (no webhook subscribed to this event, or nothing changed)'}</p>
${
	o.queued.length
		? html`<ul>
				${o.queued.map(
					(n) =>
						html`<li>
							<code>${n.event}</code> → <code>${n.url}</code> ·
							<a href="/dashboard/deliveries/?event_id=${n.event_id}">delivery</a>
						</li>`,
				)}
			</ul>`
		: ''
}</section>`;
}

export function appointmentPage(
	app: FastifyInstance,
	reply: FastifyReply,
	a: Appointment,
	done?: Done,
	status = 200,
): FastifyReply {
	const s = app.sandbox;
	const tz = s.cfg.timeZone;
	const token = reply.csrfToken();
	const base = `/dashboard/appointments/${a.appointment_key}`;
	const emails = s.emails.filter((e) => e.appointment_key === a.appointment_key);
	const local = DateTime.fromMillis(a.start, { zone: tz }).toFormat("yyyy-LL-dd'T'HH:mm");
	const errors = done?.errors ?? {};
	const body = html`${crumbs([['Appointments', '/dashboard/appointments/']], a.search_code)}
		<h1>${a.person.full_name} · ${formatHuman(a.start, tz)}</h1>
		${done ? resultPanel(done) : ''}
		<table>
			<tbody>
				<tr>
					<th scope="row">Status</th>
					<td><span class="pill${a.is_cancelled ? ' bad' : ''}">${a.status}</span></td>
				</tr>
				<tr>
					<th scope="row">Start</th>
					<td>${formatHuman(a.start, tz)} <span class="muted">(${tz})</span></td>
				</tr>
				<tr>
					<th scope="row">Client</th>
					<td>${a.person.full_name} &lt;${a.person.email}&gt;</td>
				</tr>
				<tr>
					<th scope="row">Calendar</th>
					<td>${a.calendar.name} <span class="muted mono">${a.calendar.calendar_key}</span></td>
				</tr>
				<tr>
					<th scope="row">Search code</th>
					<td class="mono">${a.search_code}</td>
				</tr>
				<tr>
					<th scope="row">Key</th>
					<td class="mono">${a.appointment_key}</td>
				</tr>
				<tr>
					<th scope="row">Emails sent</th>
					<td>
						${emails.length
							? html`${emails.map(
										(e) =>
											html`Cancellation email to ${e.to},
												${formatHuman(Date.parse(e.at), tz, true)}<br />`,
									)}<a href="/dashboard/mailbox/">See it in the mailbox</a>`
							: 'none'}
					</td>
				</tr>
				<tr>
					<th scope="row">Deliveries</th>
					<td>
						<a href="/dashboard/deliveries/?appointment_key=${a.appointment_key}"
							>Notifications about this appointment</a
						>
					</td>
				</tr>
			</tbody>
		</table>
		<h2>Actions</h2>
		<div class="actions">
			<form class="card" method="post" action="${base}/status">
				${csrfInput(token)}
				<h3>Change status</h3>
				${select({
					name: 'status',
					label: 'New status',
					options: STATUSES.map((x): [string, string] => [x, x]),
					value: done?.input?.status ?? a.status,
				})}
				${errors.status
					? html`<p class="error" id="status-error">${errors.status.join(' ')}</p>`
					: ''}
				<button class="primary" type="submit">Change status</button>
			</form>
			<form class="card" method="post" action="${base}/reschedule">
				${csrfInput(token)}
				<h3>Reschedule</h3>
				${field({
					name: 'start_date',
					label: `New start (${tz})`,
					type: 'datetime-local',
					value: done?.input?.start_date ?? local,
					errors: errors.start_date ?? errors.non_field_errors,
					required: true,
				})}
				<button class="primary" type="submit">Reschedule</button>
			</form>
			<div class="card">
				<h3>Cancel appointment</h3>
				${a.is_cancelled
					? html`<p class="muted">Already canceled: there is nothing to cancel.</p>`
					: html`<p><a class="button danger" href="${base}/cancel">Cancel appointment…</a></p>`}
			</div>
		</div>`;
	return reply.page({ title: a.person.full_name, section: 'appointments', body }, status);
}

export async function appointmentDetailPages(app: FastifyInstance) {
	const s = app.sandbox;
	const find = (key: string) => (UUID_RE.test(key) ? s.store.get(key) : undefined);
	// `done`: the action that made it go (a cancel under cancelRemoves), shown with what the API answered.
	const missing = (reply: FastifyReply, done?: Done) =>
		reply.page(
			{
				title: done ? 'Removed' : 'Not found',
				section: 'appointments',
				body: html`<h1>${done ? 'Canceled and removed' : 'Not found'}</h1>
					${done ? resultPanel(done) : ''}
					<p>
						${done
							? 'The service removed this appointment after canceling it (option cancelRemoves).'
							: 'No appointment with this key.'}
						<a href="/dashboard/appointments/">All appointments</a>
					</p>`,
			},
			done ? 200 : 404,
		);
	type Req = { params: unknown; body: unknown };
	const act = (path: string, run: (a: Appointment, b: Record<string, string>) => Done) =>
		app.post(`/appointments/:key/${path}`, async (req: Req, reply) => {
			const a = find((req.params as { key: string }).key);
			if (!a) return missing(reply);
			const b = Object.fromEntries(
				Object.entries((req.body ?? {}) as Record<string, unknown>).map(([k, v]) => [
					k,
					typeof v === 'string' ? v : '',
				]),
			) as Record<string, string>;
			const done = run(a, b);
			if (done.outcome.status < 300) return showResult(app, reply, a.appointment_key, done);
			if (done.outcome.status === 400) done.errors = done.outcome.body as Record<string, string[]>;
			return appointmentPage(app, reply, a, done, 400);
		});

	app.get('/appointments/:key/', async (req, reply) => {
		const a = find((req.params as { key: string }).key);
		const id = (req.query as { done?: unknown }).done;
		const kept = typeof id === 'string' ? results.get(s)?.get(id) : undefined;
		const key = (req.params as { key: string }).key.toLowerCase();
		if (!a) return missing(reply, kept?.key === key ? kept.done : undefined);
		return appointmentPage(app, reply, a, kept?.key === a.appointment_key ? kept.done : undefined);
	});

	app.get('/appointments/:key/cancel', async (req, reply) => {
		const a = find((req.params as { key: string }).key);
		if (!a) return missing(reply);
		const base = `/dashboard/appointments/${a.appointment_key}`;
		if (a.is_cancelled) return reply.redirect(`${base}/`, 303);
		return reply.page({
			title: 'Cancel appointment',
			section: 'appointments',
			body: html`${crumbs(
					[
						['Appointments', '/dashboard/appointments/'],
						[a.search_code, `${base}/`],
					],
					'Cancel',
				)}
				<h1>Cancel appointment?</h1>
				<form class="card" method="post" action="${base}/cancel">
					${csrfInput(reply.csrfToken())}
					<p>
						The appointment of <strong>${a.person.full_name}</strong> on
						${formatHuman(a.start, s.cfg.timeZone)} (${a.calendar.name}) will be canceled; the time
						becomes free.
					</p>
					<div class="field">
						<span
							><input type="checkbox" id="f-send_email" name="send_email" value="true" checked />
							<label for="f-send_email">Send email to client</label></span
						>
					</div>
					<button class="danger" type="submit" autofocus>Cancel appointment</button>
					<a class="button" href="${base}/">Keep it</a>
				</form>`,
		});
	});

	act('status', (a, b) => ({
		call: `PATCH /api/v3/appointments/${a.appointment_key}/ {"status": ${JSON.stringify(b.status ?? '')}}`,
		outcome: changeStatus(s, a, { status: b.status ?? '' }),
		input: b,
	}));
	act('reschedule', (a, b) => {
		// The form gives wall-clock time in the account zone; the API wants an offset.
		const dt = DateTime.fromISO(b.start_date ?? '', { zone: s.cfg.timeZone });
		const start = dt.isValid
			? (dt.toISO({ suppressMilliseconds: true }) as string)
			: (b.start_date ?? '');
		return {
			call: `PATCH /api/v3/appointments/${a.appointment_key}/reschedule/ {"start_date": ${JSON.stringify(start)}}`,
			outcome: reschedule(s, a, { start_date: start }),
			input: b,
		};
	});
	act('cancel', (a, b) => {
		const sendEmail = b.send_email === 'true';
		return {
			call: `DELETE /api/v3/appointments/${a.appointment_key}/?send_email=${sendEmail}`,
			outcome: cancel(s, a, sendEmail),
		};
	});
}
