/** Settings: its index, Integrations (leading to Webhooks, in webhookPages.ts) and API access (base URL, access tokens and time zone to copy into n8n, named as n8n's credential names them). */
import type { FastifyInstance, FastifyRequest } from 'fastify';

import { PRODUCT } from '../../product';
import { crumbs, html, type Html } from './html';

const SETTINGS: [string, string] = ['Settings', '/dashboard/settings/'];

/** The base URL as the browser reached the service: what a client of the API uses too. */
const baseUrl = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

function copyRow(id: string, label: string, value: string, secret: boolean): Html {
	return html`<div class="field">
		<label for="${id}">${label}</label>
		<div class="copyrow">
			<input
				id="${id}"
				type="${secret ? 'password' : 'text'}"
				value="${value}"
				readonly
				spellcheck="false"
				autocomplete="off"
			/>
			${secret
				? html`<button
						type="button"
						data-reveal="${id}"
						aria-pressed="false"
						aria-label="Reveal ${label}"
					>
						Reveal
					</button>`
				: ''}<button type="button" data-copy="${id}" aria-label="Copy ${label}">Copy</button>
		</div>
	</div>`;
}

export async function settingsPages(app: FastifyInstance) {
	const s = app.sandbox;

	app.get('/settings/', async (_req, reply) =>
		reply.page({
			title: 'Settings',
			section: 'settings',
			body: html`<h1>Settings</h1>
				<div class="tiles">
					<a class="card" href="/dashboard/settings/integrations/webhooks/"
						><h2>Integrations › Webhooks</h2>
						<p class="muted">
							Where ${PRODUCT} sends appointment events. ${s.webhooks.size}
							subscription${s.webhooks.size === 1 ? '' : 's'}.
						</p></a
					>
					<a class="card" href="/dashboard/settings/api/"
						><h2>API access</h2>
						<p class="muted">The base URL and access token to connect n8n or another tool.</p></a
					>
				</div>`,
		}),
	);

	app.get('/settings/integrations/', async (_req, reply) =>
		reply.page({
			title: 'Integrations',
			section: 'settings',
			body: html`${crumbs([SETTINGS], 'Integrations')}
				<h1>Integrations</h1>
				<div class="tiles">
					<a class="card" href="/dashboard/settings/integrations/webhooks/"
						><h2>Webhooks</h2>
						<p class="muted">
							${PRODUCT} posts each new, changed or canceled appointment to these URLs. n8n's
							Appointments Trigger adds its own when its workflow is published.
						</p></a
					>
				</div>`,
		}),
	);

	app.get('/settings/api/', async (req, reply) => {
		const [token] = s.tokens;
		const restricted = [...s.restricted];
		return reply.page({
			title: 'API access',
			section: 'settings',
			body: html`${crumbs([SETTINGS], 'API access')}
				<h1>API access</h1>
				<section class="card" aria-labelledby="n8n-title">
					<h2 id="n8n-title">Connect n8n</h2>
					<p>
						In n8n, create an <strong>Appointments API</strong> credential and paste these values.
					</p>
					${copyRow('base-url', 'Base URL', baseUrl(req), false)}
					${token === undefined
						? html`<p class="muted">No access token is set.</p>`
						: copyRow('api-token', 'Access token', token, true)}
					${copyRow('time-zone', 'Account time zone', s.cfg.timeZone, false)}
					<p class="muted">
						The token gives full access to appointments and webhooks. Keep it secret: anyone who has
						it can read and change your appointments.
					</p>
				</section>
				${restricted.length
					? html`<section class="card" aria-labelledby="restricted-title">
							<h2 id="restricted-title">Appointments-only tokens</h2>
							<p class="muted">These tokens can read and change appointments but not webhooks.</p>
							${restricted.map((t, i) =>
								copyRow(`restricted-token-${i + 1}`, `Appointments-only token ${i + 1}`, t, true),
							)}
						</section>`
					: ''}`,
		});
	});
}
