/** Admin interface under /__sandbox/ (admin token only): appointments, reset, logs, e-mails, webhooks, config. */
import type { FastifyInstance, FastifyRequest } from 'fastify';

import { parseDateTime } from '../dateTimes';
import {
	NOT_FOUND,
	appointmentParam,
	fieldErrors,
	json,
	readJsonObject,
	send,
	splitUrl,
	type Result,
} from '../routeHelpers';
import { createAppointment } from '../operations';
import { caList, runtimeConfigPatch, zodFieldErrors } from '../options';
import { adminCreateSchema, resetSchema } from '../schemas';
import { internalRecord } from '../store';
import { parseBoolean } from '../listFilter';

type Route = (method: string, url: string, handler: (req: FastifyRequest) => Result) => void;

/** Appointments as the sandbox keeps them (with the fields the API hides), and a reset to fresh seed data. */
function appointmentAdmin(app: FastifyInstance, route: Route): void {
	const s = app.sandbox;
	route('POST', '/__sandbox/appointments/', (req) => {
		const body = readJsonObject(req);
		if (body.error) return body.error;
		const parsed = adminCreateSchema.safeParse(body.value);
		if (!parsed.success) return fieldErrors(zodFieldErrors(parsed.error.issues));
		return createAppointment(s, parsed.data);
	});
	route('GET', '/__sandbox/appointments/', () => {
		const all = s.store.all().map((a) => internalRecord(a, s.cfg.timeZone));
		return json(200, { count: all.length, appointments: all });
	});
	route('GET', '/__sandbox/appointments/:key/', (req) => {
		const a = appointmentParam(s, req);
		return a ? json(200, internalRecord(a, s.cfg.timeZone)) : NOT_FOUND();
	});

	route('POST', '/__sandbox/reset/', (req) => {
		const body = readJsonObject(req);
		if (body.error) return body.error;
		const parsed = resetSchema.safeParse(body.value);
		if (!parsed.success) return fieldErrors(zodFieldErrors(parsed.error.issues));
		const now = parsed.data.now ?? s.options.now;
		if (now !== undefined && !parseDateTime(now, s.startCfg.timeZone))
			return fieldErrors({ now: [`"${now.slice(0, 200)}" is not a valid datetime.`] });
		s.reset({ ...parsed.data, now });
		return json(200, { appointments: s.store.size });
	});
}

/** What happened: deliveries, API requests, emails the service sent, the mail sink's messages, subscriptions. */
function logAdmin(app: FastifyInstance, route: Route): void {
	const s = app.sandbox;
	route('GET', '/__sandbox/deliveries/', (req) => {
		const q = new URLSearchParams(splitUrl(req.url).search);
		const stats = s.deliveries.stats();
		if (parseBoolean(q.get('summary') ?? '') === true) return json(200, stats);
		let list = s.deliveries.log;
		for (const f of ['event', 'appointment_key', 'webhook_key', 'event_id'] as const) {
			const v = q.get(f);
			if (v) list = list.filter((d) => d[f] === v);
		}
		return json(200, { ...stats, deliveries: list });
	});
	route('DELETE', '/__sandbox/deliveries/', () => {
		s.deliveries.clearLog();
		return { status: 204 };
	});

	route('GET', '/__sandbox/requests/', () => json(200, { requests: s.requests.entries }));
	route('DELETE', '/__sandbox/requests/', () => {
		s.requests.clear();
		return { status: 204 };
	});

	route('GET', '/__sandbox/emails/', () => json(200, { emails: s.emails }));
	route('DELETE', '/__sandbox/emails/', () => {
		s.emails = [];
		return { status: 204 };
	});

	route('GET', '/__sandbox/mailbox/', () => json(200, { results: s.mailbox.list() }));
	route('DELETE', '/__sandbox/mailbox/', () => {
		s.mailbox.clear();
		return { status: 204 };
	});

	route('GET', '/__sandbox/webhooks/', () => json(200, { webhooks: [...s.webhooks.values()] }));
}

/** The runtime configuration (tokens shown as counts), changeable without a restart. */
function configAdmin(app: FastifyInstance, route: Route): void {
	const s = app.sandbox;
	const publicConfig = () => ({
		...s.cfg,
		ca: s.cfg.ca.length,
		tokens: s.tokens.size,
		restrictedTokens: s.restricted.size,
	});
	route('GET', '/__sandbox/config/', () => json(200, publicConfig()));
	route('POST', '/__sandbox/config/', (req) => {
		const body = readJsonObject(req);
		if (body.error) return body.error;
		const parsed = runtimeConfigPatch.safeParse(body.value);
		if (!parsed.success) return fieldErrors(zodFieldErrors(parsed.error.issues));
		const { ca, tokens, restrictedTokens, ...rest } = parsed.data;
		s.cfg = { ...s.cfg, ...rest, ...(ca !== undefined ? { ca: caList(ca) } : {}) };
		if (tokens) s.tokens = new Set(tokens);
		if (restrictedTokens) s.restricted = new Set(restrictedTokens);
		s.store.setZone(s.cfg.timeZone);
		s.deliveries.configChanged();
		return json(200, publicConfig());
	});
}

export default async function adminRoutes(app: FastifyInstance) {
	app.addHook('onRequest', app.requireAdmin);
	const route: Route = (method, url, handler) =>
		app.route({
			method: method as 'GET',
			url,
			handler: async (req, reply) => send(reply, handler(req)),
		});
	appointmentAdmin(app, route);
	logAdmin(app, route);
	configAdmin(app, route);
}
