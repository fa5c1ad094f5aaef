/** Settings › Integrations › Webhooks: list, add, edit, delete (with confirmation) and send a test event. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { formatHuman, formatInstantMs } from '../../dateTimes';
import { createWebhook, deleteWebhook, updateWebhook } from '../../operations';
import type { Webhook } from '../../sandboxState';
import { EVENTS } from '../../vocabulary';
import { crumbs as trail, csrfInput, field, html, raw, type Html } from './html';

const BASE = '/dashboard/settings/integrations/webhooks/';
const UP: Array<[string, string]> = [
	['Settings', '/dashboard/settings/'],
	['Integrations', '/dashboard/settings/integrations/'],
];
/** The list's crumbs; its sub-pages add Webhooks as a link. */
const crumbs = trail(UP, 'Webhooks');
const subCrumbs = (current: string) => trail([...UP, ['Webhooks', BASE]], current);

interface Form {
	url?: string;
	events?: string[];
	other?: string;
}

const list = (v: unknown): string[] =>
	Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : [];

/** The form's values as the API body: checked events plus the free-text ones (comma or space separated). */
function formBody(b: Record<string, unknown>): { form: Form; body: Record<string, unknown> } {
	const form: Form = {
		url: typeof b.url === 'string' ? b.url : '',
		events: list(b.events),
		other: typeof b.other === 'string' ? b.other : '',
	};
	const other = form.other!.split(/[\s,]+/).filter(Boolean);
	return { form, body: { url: form.url, events: [...form.events!, ...other] } };
}

function webhookForm(
	action: string,
	title: string,
	token: string,
	form: Form,
	errors: Record<string, string[]> = {},
): Html {
	const checked = new Set(form.events ?? []);
	const eventErrors = errors.events ?? [];
	return html`${subCrumbs(title)}<h1>${title}</h1>
<form class="card" method="post" action="${action}" novalidate>${csrfInput(token)}
${field({ name: 'url', label: 'Callback URL', type: 'url', value: form.url, errors: errors.url, required: true, hint: 'https:// only; the service POSTs each event there as JSON.', attrs: 'size="70" autocomplete="off"' })}
<fieldset${eventErrors.length ? raw(' aria-describedby="events-error"') : ''}><legend class="legend">Events</legend>
${EVENTS.map((e) => html`<div><input type="checkbox" id="ev-${e}" name="events" value="${e}" ${checked.has(e) ? raw(' checked') : ''} /> <label for="ev-${e}">${e}</label></div>`)}
${field({ name: 'other', label: 'Other events (comma separated)', value: form.other, attrs: 'size="50"' })}
${eventErrors.length ? html`<p class="error" id="events-error">${eventErrors.join(' ')}</p>` : ''}</fieldset>
${errors.non_field_errors ? html`<p class="error">${errors.non_field_errors.join(' ')}</p>` : ''}
<button class="primary" type="submit">Save</button> <a class="button" href="${BASE}">Cancel</a></form>`;
}

/** The subscription a `:key` route names (keys are matched case-insensitively). */
const find = (app: FastifyInstance, req: FastifyRequest): Webhook | undefined =>
	app.sandbox.webhooks.get((req.params as { key: string }).key.toLowerCase());
const missing = (reply: FastifyReply) =>
	reply.page(
		{
			title: 'Not found',
			section: 'settings',
			body: html`<h1>Not found</h1>
				<p>No webhook with this key. <a href="${BASE}">All webhooks</a></p>`,
		},
		404,
	);

/** The list, each subscription with Edit, Delete and Send test event. */
function listPage(app: FastifyInstance): void {
	const s = app.sandbox;
	app.get('/settings/integrations/webhooks/', async (req, reply) => {
		const notice = (req.query as { notice?: string }).notice;
		const rows = [...s.webhooks.values()];
		const token = reply.csrfToken();
		return reply.page({
			title: 'Webhooks',
			section: 'settings',
			body: html`${crumbs}
				<h1>Webhooks</h1>
				${notice === 'saved'
					? html`<p class="notice" role="status">Webhook saved.</p>`
					: notice === 'deleted'
						? html`<p class="notice" role="status">Webhook deleted.</p>`
						: ''}
				<p><a class="button" href="${BASE}new">Add webhook</a></p>
				${rows.length
					? html`<table>
							<caption>
								${rows.length} subscription${rows.length === 1 ? '' : 's'}; times in
								${s.cfg.timeZone}
							</caption>
							<thead>
								<tr>
									<th scope="col">Callback URL</th>
									<th scope="col">Events</th>
									<th scope="col">Key</th>
									<th scope="col">Created</th>
									<th scope="col">Actions</th>
								</tr>
							</thead>
							<tbody>
								${rows.map(
									(w: Webhook) =>
										html`<tr>
											<td class="mono">${w.url}</td>
											<td>${w.events.map((e) => html`<span class="pill">${e}</span> `)}</td>
											<td class="mono">${w.webhook_key}</td>
											<td class="nowrap">
												${formatHuman(Date.parse(w.created_at), s.cfg.timeZone)}
											</td>
											<td>
												<a href="${BASE}${w.webhook_key}/edit" aria-label="Edit ${w.url}">Edit</a> ·
												<a href="${BASE}${w.webhook_key}/delete" aria-label="Delete ${w.url}"
													>Delete</a
												>
												<form method="post" action="${BASE}${w.webhook_key}/test" class="inline">
													${csrfInput(token)}<button
														type="submit"
														aria-label="Send test event to ${w.url}"
													>
														Send test event
													</button>
												</form>
											</td>
										</tr>`,
								)}
							</tbody>
						</table>`
					: html`<p class="card muted">
							No webhooks yet. Add one, or publish an n8n workflow with the Appointments Trigger.
						</p>`}`,
		});
	});
}

/** Add and Edit: the form, and the API's own create and update behind it. */
function formPages(app: FastifyInstance): void {
	const s = app.sandbox;
	app.get('/settings/integrations/webhooks/new', async (_req, reply) =>
		reply.page({
			title: 'Add webhook',
			section: 'settings',
			body: webhookForm(`${BASE}new`, 'Add webhook', reply.csrfToken(), { events: [...EVENTS] }),
		}),
	);
	app.post('/settings/integrations/webhooks/new', async (req, reply) => {
		const { form, body } = formBody((req.body ?? {}) as Record<string, unknown>);
		const r = createWebhook(s, body);
		if (r.status !== 201)
			return reply.page(
				{
					title: 'Add webhook',
					section: 'settings',
					body: webhookForm(
						`${BASE}new`,
						'Add webhook',
						reply.csrfToken(),
						form,
						r.body as Record<string, string[]>,
					),
				},
				400,
			);
		return reply.redirect(`${BASE}?notice=saved`, 303);
	});

	app.get('/settings/integrations/webhooks/:key/edit', async (req, reply) => {
		const w = find(app, req);
		if (!w) return missing(reply);
		const known = w.events.filter((e) => (EVENTS as readonly string[]).includes(e));
		const other = w.events.filter((e) => !known.includes(e)).join(', ');
		return reply.page({
			title: 'Edit webhook',
			section: 'settings',
			body: webhookForm(`${BASE}${w.webhook_key}/edit`, 'Edit webhook', reply.csrfToken(), {
				url: w.url,
				events: known,
				other,
			}),
		});
	});
	app.post('/settings/integrations/webhooks/:key/edit', async (req, reply) => {
		const w = find(app, req);
		if (!w) return missing(reply);
		const { form, body } = formBody((req.body ?? {}) as Record<string, unknown>);
		const r = updateWebhook(s, w.webhook_key, body);
		if (r.status !== 200)
			return reply.page(
				{
					title: 'Edit webhook',
					section: 'settings',
					body: webhookForm(
						`${BASE}${w.webhook_key}/edit`,
						'Edit webhook',
						reply.csrfToken(),
						form,
						r.body as Record<string, string[]>,
					),
				},
				400,
			);
		return reply.redirect(`${BASE}?notice=saved`, 303);
	});
}

/** Delete (with a confirmation page) and Send test event. */
function actionPages(app: FastifyInstance): void {
	const s = app.sandbox;
	app.get('/settings/integrations/webhooks/:key/delete', async (req, reply) => {
		const w = find(app, req);
		if (!w) return missing(reply);
		return reply.page({
			title: 'Delete webhook',
			section: 'settings',
			body: html`${subCrumbs('Delete webhook')}
				<h1>Delete webhook?</h1>
				<form class="card" method="post" action="${BASE}${w.webhook_key}/delete">
					${csrfInput(reply.csrfToken())}
					<p>Events will no longer be sent to <code>${w.url}</code> (${w.events.join(', ')}).</p>
					<button class="danger" type="submit" autofocus>Delete webhook</button>
					<a class="button" href="${BASE}">Keep it</a>
				</form>`,
		});
	});
	app.post('/settings/integrations/webhooks/:key/delete', async (req, reply) => {
		const w = find(app, req);
		if (!w) return missing(reply);
		deleteWebhook(s, w.webhook_key);
		return reply.redirect(`${BASE}?notice=deleted`, 303);
	});

	app.post('/settings/integrations/webhooks/:key/test', async (req, reply) => {
		const w = find(app, req);
		if (!w) return missing(reply);
		// A test event: the first event the subscription takes, carrying the first appointment as a sample.
		const sample = s.store.all()[0];
		const data = sample ? s.store.json(sample) : 'null';
		const event = w.events[0];
		const body = `{"event":${JSON.stringify(event)},"timestamp":${JSON.stringify(formatInstantMs(Date.now(), s.cfg.timeZone))},"data":${data}}`;
		const [queued] = s.deliveries.enqueue(event, sample?.appointment_key ?? '', body, [w]);
		return reply.redirect(`/dashboard/deliveries/?event_id=${queued?.event_id ?? ''}`, 303);
	});
}

export async function webhookPages(app: FastifyInstance) {
	listPage(app);
	formPages(app);
	actionPages(app);
}
