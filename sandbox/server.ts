/**
 * The sandbox's HTTP server: fastify plugins sharing one SandboxState (decorated as `sandbox`): access and the
 * request log, faults, the API's appointment and webhook routes, the admin routes, and the web dashboard.
 * Every handler computes its answer synchronously after the body is read, so mutations are atomic with respect
 * to each other (Node runs one handler at a time between awaits).
 */
import Fastify, { type FastifyInstance } from 'fastify';

import { NOT_FOUND, detail, send, splitUrl } from './routeHelpers';
import type { SandboxOptions } from './options';
import access from './plugins/access';
import admin from './plugins/adminRoutes';
import appointments from './plugins/appointmentRoutes';
import dashboard from './plugins/dashboard';
import faults from './plugins/faultRoutes';
import webhooks from './plugins/webhookRoutes';
import { SandboxState } from './sandboxState';

export { EVENTS } from './vocabulary';
export { TRANSITIONS } from './operations';
export { DEFAULT_PAGE_SIZE, MAX_JSON_DEPTH, MAX_PAGE_SIZE } from './routeHelpers';
export type { RequestLogEntry } from './sandboxState';

declare module 'fastify' {
	interface FastifyInstance {
		sandbox: SandboxState;
	}
}

export async function buildServer(
	options: SandboxOptions,
): Promise<{ app: FastifyInstance; state: SandboxState }> {
	const state = new SandboxState(options);
	const app = Fastify({
		logger: false,
		bodyLimit: 1_048_576,
		forceCloseConnections: true,
		return503OnClosing: false,
		...(options.tls ? { https: { cert: options.tls.cert, key: options.tls.key } } : {}),
	}) as unknown as FastifyInstance;
	app.removeAllContentTypeParsers();
	app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
	app.decorate('sandbox', state);

	app.setNotFoundHandler((req, reply) => {
		const { path } = splitUrl(req.url);
		// A known API path with another method: 405 with Allow, from the routes the plugins registered.
		const methods = app.apiMethodsFor(path);
		if (methods && !methods.includes(req.method)) {
			if (app.accessOf(req) === undefined) return send(reply, app.unauthorized(req));
			return send(
				reply,
				detail(405, `Method "${req.method}" not allowed.`, { allow: methods.join(', ') }),
			);
		}
		return send(reply, NOT_FOUND());
	});
	app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _req, reply) => {
		const status =
			err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
		let message = status === 500 ? `Internal sandbox error: ${err.message}` : err.message;
		if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
			message = 'Unsupported media type in request: send JSON with Content-Type: application/json.';
		if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
			message = 'Request body too large (limit 1 MiB).';
		return send(reply, detail(status, message));
	});

	// After the handlers above: plugins take the error handler in force when they are registered.
	await app.register(access);
	await app.register(faults);
	await app.register(appointments);
	await app.register(webhooks);
	await app.register(admin);
	await app.register(dashboard, { prefix: '/dashboard' });
	return { app, state };
}
