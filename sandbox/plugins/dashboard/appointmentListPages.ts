/** Appointments: the paged, filtered list and the New appointment form. The detail page is in appointmentDetailPages.ts. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { DateTime } from 'luxon';

import { dayBounds, formatHuman } from '../../dateTimes';
import { createAppointment } from '../../operations';
import { zodFieldErrors } from '../../options';
import { adminCreateSchema } from '../../schemas';
import { STATUSES, type Appointment } from '../../vocabulary';
import { parseListFilter } from '../../listFilter';
import { appointmentDetailPages, showResult } from './appointmentDetailPages';
import { crumbs, csrfInput, field, html, select, type Html } from './html';

const PAGE_SIZE = 25;
const statusOptions = (any: string): Array<[string, string]> => [
	['', any],
	...STATUSES.map((x): [string, string] => [x, x]),
];

export function calendarOptions(app: FastifyInstance, any: string): Array<[string, string]> {
	const s = app.sandbox;
	const known = new Map(s.seedWorld.calendars.map((c) => [c.calendar_key, c.name]));
	for (const a of s.store.all())
		if (!known.has(a.calendar.calendar_key)) known.set(a.calendar.calendar_key, a.calendar.name);
	return [['', any], ...[...known].map(([k, n]): [string, string] => [k, n])];
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

type ListForm = { from: string; to: string; status: string; calendar: string; q: string };

/** The appointments the list form picks, through the API's own filter (its errors by API parameter). */
function listRows(
	app: FastifyInstance,
	f: ListForm,
): { rows: Appointment[]; errors: Record<string, string[]> } {
	const s = app.sandbox;
	const api = new URLSearchParams();
	if (f.from) api.set('start_date', f.from);
	if (f.to) api.set('end_date', f.to);
	if (f.status) api.set('status', f.status);
	if (f.calendar) api.set('calendar_key', f.calendar);
	const parsed = parseListFilter(api, s.cfg.timeZone);
	const errors = parsed.errors ?? {};
	let rows: Appointment[] = parsed.filter ? s.store.list(parsed.filter) : [];
	if (f.q) {
		const needle = f.q.toLowerCase();
		rows = rows.filter(
			(a) =>
				a.person.full_name.toLowerCase().includes(needle) ||
				a.person.email.toLowerCase().includes(needle) ||
				a.search_code.toLowerCase() === needle,
		);
	}
	return { rows, errors };
}

/** The first row starting today or later (rows are in start order); rows.length when none does. */
function todayIndex(rows: Appointment[], startOfToday: number): number {
	const i = rows.findIndex((a) => a.start >= startOfToday);
	return i === -1 ? rows.length : i;
}

/**
 * Pages of PAGE_SIZE rows laid so that one starts at `anchor` (today's first row), as a calendar opens at today: the
 * rows before it fill the pages before, the first of them shorter. A list that fits on one page is one page.
 */
function paging(rows: Appointment[], anchor: number) {
	const lead = rows.length <= PAGE_SIZE ? 0 : anchor % PAGE_SIZE;
	const pages = Math.max(1, (lead ? 1 : 0) + Math.ceil((rows.length - lead) / PAGE_SIZE));
	const start = (p: number) => (p === 1 ? 0 : lead + (p - (lead ? 2 : 1)) * PAGE_SIZE);
	const todayPage =
		rows.length <= PAGE_SIZE
			? 1
			: Math.min(pages, (lead ? 2 : 1) + Math.floor((anchor - lead) / PAGE_SIZE));
	return {
		pages,
		todayPage,
		slice: (p: number): [number, number] => [
			start(p),
			p === 1 && lead ? lead : start(p) + PAGE_SIZE,
		],
	};
}

/** The paged, filtered list. */
function listPage(app: FastifyInstance): void {
	const s = app.sandbox;
	app.get('/appointments/', async (req, reply) => {
		const q = (req.query ?? {}) as Record<string, unknown>;
		const f: ListForm = {
			from: str(q.from),
			to: str(q.to),
			status: str(q.status),
			calendar: str(q.calendar),
			q: str(q.q).trim(),
		};
		const { rows, errors } = listRows(app, f);
		const tz = s.cfg.timeZone;
		const today = dayBounds(Date.now(), tz)[0];
		const paged = paging(rows, f.from ? 0 : todayIndex(rows, today));
		const page = Math.min(
			paged.pages,
			Math.max(1, Number.parseInt(str(q.page), 10) || paged.todayPage),
		);
		const shown = rows.slice(...paged.slice(page));
		const pageLink = (n: number) => {
			const u = new URLSearchParams(Object.entries(f).filter(([, v]) => v !== ''));
			u.set('page', String(n));
			return `/dashboard/appointments/?${u}`;
		};
		return reply.page({
			title: 'Appointments',
			section: 'appointments',
			body: html`<h1>Appointments</h1>
				<p><a class="button" href="/dashboard/appointments/new">New appointment</a></p>
				<form
					class="card row"
					method="get"
					action="/dashboard/appointments/"
					role="search"
					aria-label="Filter appointments"
				>
					${field({
						name: 'from',
						label: 'From',
						type: 'date',
						value: f.from,
						errors: errors.start_date,
					})}
					${field({ name: 'to', label: 'To', type: 'date', value: f.to, errors: errors.end_date })}
					${select({
						name: 'status',
						label: 'Status',
						options: statusOptions('Any status'),
						value: f.status,
					})}
					${select({
						name: 'calendar',
						label: 'Calendar',
						options: calendarOptions(app, 'Any calendar'),
						value: f.calendar,
					})}
					${field({ name: 'q', label: 'Name, email or code', type: 'search', value: f.q })}
					<div class="field"><button class="primary" type="submit">Filter</button></div>
				</form>
				<p class="muted">
					${rows.length}
					appointment${rows.length === 1 ? '' : 's'}${f.from
						? ''
						: html`; the list opens at today,
							${DateTime.fromMillis(today, { zone: tz })
								.setLocale('en-GB')
								.toFormat('ccc d LLL yyyy')},
							with the earlier ones on the pages before`};
					times in ${tz}.
				</p>
				<table>
					<thead>
						<tr>
							<th scope="col">Start</th>
							<th scope="col">Client</th>
							<th scope="col">Status</th>
							<th scope="col">Calendar</th>
							<th scope="col">Code</th>
						</tr>
					</thead>
					<tbody>
						${shown.map(
							(a) =>
								html`<tr>
									<td>
										<a href="/dashboard/appointments/${a.appointment_key}/"
											>${formatHuman(a.start, tz)}</a
										>
									</td>
									<td>${a.person.full_name}<br /><span class="muted">${a.person.email}</span></td>
									<td><span class="pill${a.is_cancelled ? ' bad' : ''}">${a.status}</span></td>
									<td>${a.calendar.name}</td>
									<td class="mono">${a.search_code}</td>
								</tr>`,
						)}
					</tbody>
				</table>
				<nav class="pager" aria-label="Pages">
					${page > 1 ? html`<a href="${pageLink(page - 1)}" rel="prev">‹ Earlier</a>` : ''}<span
						>Page ${page} of ${paged.pages}</span
					>${page < paged.pages
						? html`<a href="${pageLink(page + 1)}" rel="next">Later ›</a>`
						: ''}${f.from || page === paged.todayPage
						? ''
						: html`<a href="${pageLink(paged.todayPage)}">Today</a>`}
				</nav>`,
		});
	});
}

/** The New appointment form; created, it redirects to the appointment's page with the call's result. */
function newAppointmentPages(app: FastifyInstance): void {
	const s = app.sandbox;
	const newForm = (
		reply: FastifyReply,
		v: Record<string, string>,
		errors: Record<string, string[]> = {},
		status = 200,
	): FastifyReply => {
		const body: Html = html`${crumbs(
				[['Appointments', '/dashboard/appointments/']],
				'New appointment',
			)}
			<h1>New appointment</h1>
			<form class="card" method="post" action="/dashboard/appointments/new" novalidate>
				${csrfInput(reply.csrfToken())}
				${field({
					name: 'full_name',
					label: 'Client name',
					value: v.full_name,
					errors: errors['person.full_name'],
					attrs: 'autocomplete="off" size="40"',
				})}
				${field({
					name: 'email',
					label: 'Client email',
					type: 'email',
					value: v.email,
					errors: errors['person.email'],
					attrs: 'autocomplete="off" size="40"',
				})}
				${field({
					name: 'start_date',
					label: `Start (${s.cfg.timeZone})`,
					type: 'datetime-local',
					value: v.start_date,
					errors: errors.start_date,
					hint: 'Empty: a free quarter hour within the next week.',
				})}
				${select({
					name: 'calendar',
					label: 'Calendar',
					options: calendarOptions(app, 'Any (generated)'),
					value: v.calendar,
				})}
				${select({
					name: 'status',
					label: 'Status',
					options: statusOptions('CONFIRMED (default)'),
					value: v.status,
				})}
				${Object.entries(errors)
					.filter(([k]) => !['person.full_name', 'person.email', 'start_date'].includes(k))
					.map(([k, m]) => html`<p class="error">${k}: ${m.join(' ')}</p>`)}
				<p class="muted">
					Empty fields are generated from the seed, as
					<code>POST /__sandbox/appointments/</code> does. Creating it emits
					<code>appointment.created</code>.
				</p>
				<button class="primary" type="submit">Create appointment</button>
				<a class="button" href="/dashboard/appointments/">Cancel</a>
			</form>`;
		return reply.page({ title: 'New appointment', section: 'appointments', body }, status);
	};

	app.get('/appointments/new', async (_req, reply) => newForm(reply, {}));
	app.post('/appointments/new', async (req, reply) => {
		const b = (req.body ?? {}) as Record<string, unknown>;
		const v = {
			full_name: str(b.full_name).trim(),
			email: str(b.email).trim(),
			start_date: str(b.start_date),
			calendar: str(b.calendar),
			status: str(b.status),
		};
		const person: Record<string, string> = {};
		if (v.full_name) person.full_name = v.full_name;
		if (v.email) person.email = v.email;
		const body: Record<string, unknown> = {};
		if (Object.keys(person).length) body.person = person;
		if (v.start_date) body.start_date = v.start_date;
		if (v.calendar) body.calendar = { calendar_key: v.calendar };
		if (v.status) body.status = v.status;
		const parsed = adminCreateSchema.safeParse(body);
		if (!parsed.success) return newForm(reply, v, zodFieldErrors(parsed.error.issues), 400);
		const outcome = createAppointment(s, parsed.data);
		if (outcome.status !== 201)
			return newForm(reply, v, outcome.body as Record<string, string[]>, 400);
		const key = (outcome.body as { appointment_key: string }).appointment_key;
		return showResult(app, reply, key, { call: 'POST /__sandbox/appointments/', outcome });
	});
}

export async function appointmentPages(app: FastifyInstance) {
	listPage(app);
	newAppointmentPages(app);
	await app.register(appointmentDetailPages);
}
