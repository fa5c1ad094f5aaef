/** API: /api/v3/webhooks/ (list, create, replace, delete); full-access tokens only. */
import type { FastifyInstance } from 'fastify';

import {
	NOT_FOUND,
	detail,
	fieldErrors,
	json,
	pageLink,
	pageParams,
	readJsonObject,
	splitUrl,
} from '../routeHelpers';
import { createWebhook, deleteWebhook, updateWebhook } from '../operations';

export default async function webhookRoutes(app: FastifyInstance) {
	const s = app.sandbox;
	const webhooksOnly = { webhooks: true };

	app.api(
		'GET',
		'/api/v3/webhooks/',
		(req) => {
			const all = [...s.webhooks.values()];
			if (s.cfg.webhookList === 'array') return json(200, all);
			const q = new URLSearchParams(splitUrl(req.url).search);
			const pp = pageParams(q, s.cfg.pageSize);
			if (pp.errors) return fieldErrors(pp.errors);
			const { page, size } = pp;
			const pages = Math.max(1, Math.ceil(all.length / size));
			if (page > pages) return detail(404, 'Invalid page.');
			return json(200, {
				count: all.length,
				next:
					page < pages
						? pageLink(s, req, '/api/v3/webhooks/', q, { page: String(page + 1) })
						: null,
				previous:
					page > 1
						? pageLink(s, req, '/api/v3/webhooks/', q, {
								page: page === 2 ? undefined : String(page - 1),
							})
						: null,
				results: all.slice((page - 1) * size, page * size),
			});
		},
		webhooksOnly,
	);

	app.api(
		'POST',
		'/api/v3/webhooks/',
		(req) => {
			const body = readJsonObject(req);
			return body.error ?? createWebhook(s, body.value!);
		},
		webhooksOnly,
	);

	app.api(
		'PUT',
		'/api/v3/webhooks/:key/',
		(req) => {
			const key = (req.params as { key: string }).key;
			if (!s.webhooks.has(key.toLowerCase())) return NOT_FOUND(); // before the body is read
			const body = readJsonObject(req);
			return body.error ?? updateWebhook(s, key, body.value!);
		},
		webhooksOnly,
	);

	app.api(
		'DELETE',
		'/api/v3/webhooks/:key/',
		(req) => deleteWebhook(s, (req.params as { key: string }).key),
		webhooksOnly,
	);
}
