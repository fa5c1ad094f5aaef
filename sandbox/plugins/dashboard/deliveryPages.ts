/** Deliveries: every notification (newest first) with its attempts, next retry, final state and JSON payload. */
import type { FastifyInstance } from 'fastify';

import { formatHuman } from '../../dateTimes';
import type { DeliveryLogEntry, Notification } from '../../deliveries';
import { EVENTS } from '../../vocabulary';
import { field, html, pretty, select } from './html';

const PAGE_SIZE = 50;
const STATE_CLASS: Record<Notification['state'], string> = {
	delivered: 'ok',
	'given up': 'bad',
	queued: 'wait',
	sending: 'wait',
	'retry scheduled': 'wait',
};
const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

export async function deliveryPages(app: FastifyInstance) {
	const s = app.sandbox;

	app.get('/deliveries/', async (req, reply) => {
		const q = (req.query ?? {}) as Record<string, unknown>;
		const f = {
			event: str(q.event),
			appointment_key: str(q.appointment_key).toLowerCase(),
			event_id: str(q.event_id),
		};
		const attempts = new Map<string, DeliveryLogEntry[]>();
		for (const e of s.deliveries.log) {
			const k = `${e.event_id}|${e.copy}|${e.webhook_key}`;
			let list = attempts.get(k);
			if (!list) attempts.set(k, (list = []));
			list.push(e);
		}
		const all = s.deliveries.recent
			.filter(
				(n) =>
					(!f.event || n.event === f.event) &&
					(!f.appointment_key || n.appointment_key === f.appointment_key) &&
					(!f.event_id || n.event_id === f.event_id),
			)
			.reverse();
		const pages = Math.max(1, Math.ceil(all.length / PAGE_SIZE));
		const page = Math.min(pages, Math.max(1, Number.parseInt(str(q.page), 10) || 1));
		const shown = all.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
		const stats = s.deliveries.stats();
		const tz = s.cfg.timeZone;
		const at = (ms: number) => formatHuman(ms, tz, true);
		const pageLink = (n: number) =>
			`/dashboard/deliveries/?${new URLSearchParams({ ...Object.fromEntries(Object.entries(f).filter(([, v]) => v)), page: String(n) })}`;
		return reply.page({
			title: 'Deliveries',
			section: 'deliveries',
			body: html`<h1>Deliveries</h1>
				<p class="muted">
					${stats.pending} pending · ${stats.succeeded} delivered · ${stats.gave_up} given up ·
					${stats.attempts} attempt${stats.attempts === 1 ? '' : 's'} in all. Retry schedule:
					${s.cfg.retrySchedule.join(', ')} ms. Times in ${tz}.
				</p>
				<form
					class="card row"
					method="get"
					action="/dashboard/deliveries/"
					role="search"
					aria-label="Filter deliveries"
				>
					${select({
						name: 'event',
						label: 'Event',
						options: [['', 'Any event'], ...EVENTS.map((e): [string, string] => [e, e])],
						value: f.event,
					})}
					${field({
						name: 'appointment_key',
						label: 'Appointment key',
						value: f.appointment_key,
						attrs: 'size="38"',
					})}
					${field({ name: 'event_id', label: 'Event id', value: f.event_id, attrs: 'size="38"' })}
					<div class="field"><button class="primary" type="submit">Filter</button></div>
				</form>
				${shown.length
					? ''
					: html`<p class="card muted">
							No
							notifications${f.event || f.appointment_key || f.event_id
								? ' match these filters'
								: ' yet'}.
						</p>`}
				${shown.map((n) => {
					const tries = attempts.get(`${n.event_id}|${n.copy}|${n.webhook_key}`) ?? [];
					return html`<article class="card" aria-label="${n.event} to ${n.url}">
						<div class="row between">
							<div>
								<strong>${n.event}</strong> → <code>${n.url}</code>${n.copy > 1
									? html` <span class="pill">copy ${n.copy}</span>`
									: ''}
							</div>
							<span class="pill ${STATE_CLASS[n.state]}">${n.state}</span>
						</div>
						<p class="muted">
							Appointment
							<a class="mono" href="/dashboard/appointments/${n.appointment_key}/"
								>${n.appointment_key}</a
							>
							· event <span class="mono">${n.event_id}</span> · queued
							${at(n.queuedAt)}${n.nextAt
								? html` · <strong>next retry ${at(n.nextAt)}</strong>`
								: ''}
						</p>
						${tries.length
							? html`<table>
									<thead>
										<tr>
											<th scope="col">Attempt</th>
											<th scope="col">Time</th>
											<th scope="col">Answer</th>
											<th scope="col">Duration</th>
										</tr>
									</thead>
									<tbody>
										${tries.map(
											(t) =>
												html`<tr>
													<td>${t.attempt}</td>
													<td>${at(Date.parse(t.at))}</td>
													<td>
														${t.status !== null
															? html`<span class="pill ${t.ok ? 'ok' : 'bad'}">${t.status}</span> `
															: ''}${t.error ?? ''}
													</td>
													<td>${t.duration_ms} ms</td>
												</tr>`,
										)}
									</tbody>
								</table>`
							: html`<p class="muted">No attempt yet.</p>`}
						<details>
							<summary>JSON payload</summary>
							<pre>${pretty(n.body)}</pre>
						</details>
					</article>`;
				})}
				<nav class="pager" aria-label="Pages">
					${page > 1 ? html`<a href="${pageLink(page - 1)}" rel="prev">‹ Newer</a>` : ''}<span
						>Page ${page} of ${pages}</span
					>${page < pages ? html`<a href="${pageLink(page + 1)}" rel="next">Older ›</a>` : ''}
				</nav>`,
		});
	});
}
