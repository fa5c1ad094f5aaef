/** Fault injection in front of the API (latency, failing answers, delays, resets) and its admin endpoints. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

import { faultSpec, type Fault } from '../faults';
import {
	decodeURIComponentSafe,
	fieldErrors,
	json,
	readJsonObject,
	send,
	splitUrl,
	type Result,
} from '../routeHelpers';
import { zodFieldErrors } from '../options';

declare module 'fastify' {
	interface FastifyInstance {
		/**
		 * 'before': adds the latency and takes the fault matching the request, if any; both phases then apply it
		 * when it is theirs. True when the fault answered (or reset the connection) in place of the route.
		 */
		applyFault(
			phase: 'before' | 'after',
			req: FastifyRequest,
			reply: FastifyReply,
		): Promise<boolean>;
	}
	interface FastifyRequest {
		fault: Fault | null;
	}
}

function faultResult(f: Fault): Result {
	const headers: Record<string, string> = {};
	if (f.retryAfter !== undefined) headers['retry-after'] = f.retryAfter;
	const status = f.status!;
	if (f.body === undefined) return { status, headers }; // as a proxy or gateway in front of a service would: no body
	if (typeof f.body === 'string') return { status, raw: f.body, headers };
	return json(status, f.body, headers);
}

export default fp(async (app: FastifyInstance) => {
	const s = app.sandbox;
	app.decorateRequest('fault', null);
	// A latency or a fault's delay (up to 10 minutes) ends when the sandbox closes, failing its request (whose
	// connection is gone), so that a process which closed its sandbox (a test file) is not kept alive waiting it out.
	const waiting = new Set<(closed: boolean) => void>();
	const sleep = (ms: number) =>
		new Promise<void>((resolve, reject) => {
			const end = (closed: boolean) => {
				clearTimeout(timer);
				waiting.delete(end);
				if (closed) reject(new Error('the sandbox closed'));
				else resolve();
			};
			const timer = setTimeout(() => end(false), ms);
			waiting.add(end);
		});
	app.addHook('onClose', async () => {
		for (const end of waiting) end(true);
	});

	app.decorate(
		'applyFault',
		async (phase: 'before' | 'after', req: FastifyRequest, reply: FastifyReply) => {
			if (phase === 'before') {
				const latency = s.cfg.latencyMs + s.faults.latencyMs;
				if (latency > 0) await sleep(latency);
				const { path, search } = splitUrl(req.url);
				req.fault =
					s.faults.take(req.method, decodeURIComponentSafe(path), new URLSearchParams(search)) ??
					null;
				if (req.fault && req.logEntry) req.logEntry.fault = req.fault.id;
			}
			const fault = req.fault;
			if (!fault || fault.phase !== phase) return false;
			if (fault.delayMs) await sleep(fault.delayMs);
			if (fault.reset) {
				app.resetConnection(req, reply);
				return true;
			}
			if (fault.status === undefined) return false;
			await send(reply, faultResult(fault));
			return true;
		},
	);

	const adminOnly = { onRequest: app.requireAdmin };
	app.get('/__sandbox/faults/', adminOnly, async (_req, reply) =>
		send(reply, json(200, { faults: s.faults.active(), latencyMs: s.faults.latencyMs })),
	);
	app.post('/__sandbox/faults/', adminOnly, async (req, reply) => {
		const body = readJsonObject(req);
		if (body.error) return send(reply, body.error);
		const parsed = faultSpec.safeParse(body.value);
		if (!parsed.success) return send(reply, fieldErrors(zodFieldErrors(parsed.error.issues)));
		const spec = parsed.data;
		if (
			spec.latencyMs === undefined &&
			spec.status === undefined &&
			spec.delayMs === undefined &&
			!spec.reset
		) {
			return send(
				reply,
				fieldErrors({
					non_field_errors: ['Give at least one of status, delayMs, reset (a fault) or latencyMs.'],
				}),
			);
		}
		if (spec.retryAfter !== undefined && spec.status === undefined)
			return send(reply, fieldErrors({ retryAfter: ['retryAfter needs a status.'] }));
		const fault = s.faults.add(spec);
		return send(
			reply,
			json(201, { fault: fault ?? null, faults: s.faults.active(), latencyMs: s.faults.latencyMs }),
		);
	});
	app.delete('/__sandbox/faults/', adminOnly, async (_req, reply) => {
		s.faults.clear();
		return send(reply, { status: 204 });
	});
});
