/**
 * Who may do what, and the API request log: the log entry is made once the router has matched the request, so it
 * records the route's decision (a restricted token on a percent-encoded `/webhooks/` path is logged as refused).
 */
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

import {
	decodeURIComponentSafe,
	detail,
	queryObject,
	send,
	splitUrl,
	type Result,
} from '../routeHelpers';
import type { RequestLogEntry } from '../sandboxState';

export type Access = 'full' | 'restricted';
type ApiHandler = (req: FastifyRequest, access: Access) => Result;

declare module 'fastify' {
	interface FastifyInstance {
		/** Registers an API route: latency and faults, authentication, permission, then `handler`. */
		api(method: string, url: string, handler: ApiHandler, opts?: { webhooks?: boolean }): void;
		/** The methods registered with api() for a concrete path (405 with Allow); undefined when no route has it. */
		apiMethodsFor(path: string): string[] | undefined;
		/** onRequest hook of every admin route: the admin token or 401. */
		requireAdmin(req: FastifyRequest, reply: FastifyReply): Promise<unknown>;
		accessOf(req: FastifyRequest): Access | undefined;
		unauthorized(req: FastifyRequest): Result;
		resetConnection(req: FastifyRequest, reply: FastifyReply): void;
	}
	interface FastifyRequest {
		logEntry: RequestLogEntry | null;
	}
	interface FastifyContextConfig {
		/** a /webhooks/ endpoint: restricted tokens get 403 */
		webhooks?: boolean;
	}
}

export function bearer(req: FastifyRequest): string | undefined {
	const h = req.headers.authorization;
	if (typeof h !== 'string') return undefined;
	const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
	return m ? m[1] : undefined;
}

/** `/api/v3/webhooks/:key/` -> a RegExp matching `/api/v3/webhooks/<anything but a slash>/`. */
function routePattern(url: string): RegExp {
	const parts = url
		.split(/:[A-Za-z_]\w*/)
		.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
	return new RegExp(`^${parts.join('[^/]+')}$`);
}

/** Who is asking: accessOf (a token's access), unauthorized (the 401 to answer) and requireAdmin. */
function authentication(app: FastifyInstance): void {
	const s = app.sandbox;
	app.decorate('accessOf', (req: FastifyRequest): Access | undefined => {
		const t = bearer(req);
		if (t === undefined) return undefined;
		if (s.tokens.has(t)) return 'full';
		if (s.restricted.has(t)) return 'restricted';
		return undefined;
	});
	app.decorate(
		'unauthorized',
		(req: FastifyRequest): Result =>
			req.headers.authorization === undefined
				? detail(401, 'Authentication credentials were not provided.', {
						'www-authenticate': 'Bearer realm="api"',
					})
				: detail(401, 'Invalid token.', {
						'www-authenticate': 'Bearer realm="api", error="invalid_token"',
					}),
	);
	app.decorate('requireAdmin', async (req: FastifyRequest, reply: FastifyReply) => {
		if (bearer(req) === s.adminToken) return;
		return send(
			reply,
			req.headers.authorization === undefined
				? detail(401, 'Admin token required (Authorization: Bearer <admin token>).', {
						'www-authenticate': 'Bearer realm="sandbox-admin"',
					})
				: detail(401, 'Invalid admin token.', {
						'www-authenticate': 'Bearer realm="sandbox-admin", error="invalid_token"',
					}),
		);
	});
}

/** The API request log: an entry per /api/ request once routed, its status when answered (0 for a reset). */
function requestLog(app: FastifyInstance): void {
	const s = app.sandbox;
	app.decorateRequest('logEntry', null);
	app.addHook('onRequest', async (req) => {
		if (!req.url.startsWith('/api/')) return;
		const { path, search } = splitUrl(req.url);
		const a = app.accessOf(req);
		const authorized = a === 'full' || (a === 'restricted' && !req.routeOptions.config?.webhooks);
		const entry: RequestLogEntry = {
			method: req.method,
			path: decodeURIComponentSafe(path),
			// A refused request's query is not kept: anyone can send them, as many and as large as they like.
			query: authorized ? queryObject(new URLSearchParams(search)) : Object.create(null),
			status: null,
			at: new Date().toISOString(),
			authorized,
			fault: null,
		};
		if (!authorized && search) entry.query_omitted = search.length;
		if (!authorized && entry.path.length > 256) entry.path = `${entry.path.slice(0, 256)}…`;
		s.requests.push(entry);
		req.logEntry = entry;
	});
	app.addHook('onResponse', async (req, reply) => {
		const entry = req.logEntry;
		if (entry && entry.status === null) entry.status = reply.statusCode;
	});
	app.decorate('resetConnection', (req: FastifyRequest, reply: FastifyReply) => {
		if (req.logEntry) req.logEntry.status = 0;
		reply.hijack();
		const socket = req.raw.socket as Socket & { resetAndDestroy?: () => void };
		if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
		else socket.destroy();
	});
}

/** api() and apiMethodsFor(): every API route registered with its checks, and the table of what is registered. */
function apiRoutes(app: FastifyInstance): void {
	// The API's route table, filled by api() as the plugins register: the 405 answers read it, so they cannot
	// disagree with the routes.
	const table = new Map<string, { pattern: RegExp; methods: string[] }>();
	app.decorate(
		'apiMethodsFor',
		(path: string) => [...table.values()].find((r) => r.pattern.test(path))?.methods,
	);

	app.decorate(
		'api',
		function (
			this: FastifyInstance,
			method: string,
			url: string,
			handler: ApiHandler,
			opts: { webhooks?: boolean } = {},
		) {
			const known = table.get(url) ?? { pattern: routePattern(url), methods: [] };
			known.methods.push(method);
			table.set(url, known);
			this.route({
				method: method as 'GET',
				url,
				config: { webhooks: opts.webhooks ?? false },
				handler: async (req, reply) => {
					if (await app.applyFault('before', req, reply)) return reply;
					const a = app.accessOf(req);
					let result: Result;
					if (a === undefined) result = app.unauthorized(req);
					else if (opts.webhooks && a !== 'full')
						result = detail(403, 'You do not have permission to perform this action.');
					else result = handler(req, a);
					if (await app.applyFault('after', req, reply)) return reply;
					return send(reply, result);
				},
			});
		},
	);
}

export default fp(async (app: FastifyInstance) => {
	authentication(app);
	requestLog(app);
	apiRoutes(app);
});
