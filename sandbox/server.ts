/**
 * The sandbox's HTTP server: the API under /api/v3/ and the admin interface under /__sandbox/.
 * Every handler computes its answer synchronously after the body is read, so mutations are atomic with respect
 * to each other (Node runs one handler at a time between awaits).
 */
import crypto from 'node:crypto';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod/v4';

import { formatInstant, formatInstantMs, parseDateTime } from './dates';
import { DeliveryEngine } from './deliveries';
import { faultSpec, Faults, type Fault } from './faults';
import { caList, initialConfig, runtimeConfigPatch, zodFieldErrors, type RuntimeConfig, type SandboxOptions } from './options';
import { generateAppointment, rng, searchCode, seedAppointments, uuid, world, type Rand, type SeedWorld } from './seed';
import {
	AppointmentStore,
	CANCELLED_STATUSES,
	STATUSES,
	UUID_RE,
	internalRecord,
	isStatus,
	parseBoolean,
	parseListFilter,
	type Appointment,
	type FieldErrors,
	type ListFilter,
	type Status,
} from './store';

export const EVENTS = ['appointment.created', 'appointment.updated', 'appointment.canceled'] as const;
export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 50;

/**
 * PATCH status transitions. From any status that is not a cancelled one, every status is accepted (the service's
 * real rules are not shown; a permissive table lets the nodes be tested for every move). Out of the cancelled
 * statuses nothing but the same status is accepted.
 */
export const TRANSITIONS: Record<Status, readonly Status[]> = Object.fromEntries(
	STATUSES.map((s) => [s, CANCELLED_STATUSES.has(s) ? [s] : STATUSES]),
) as unknown as Record<Status, readonly Status[]>;

interface Webhook {
	webhook_key: string;
	url: string;
	events: string[];
	created_at: string;
}

interface Result {
	status: number;
	body?: unknown;
	/** pre-serialised JSON */
	raw?: string | Buffer;
	headers?: Record<string, string>;
}

export interface RequestLogEntry {
	method: string;
	path: string;
	query: Record<string, string | string[]>;
	status: number | null;
	at: string;
	authorized: boolean;
	fault: number | null;
}

const json = (status: number, body: unknown, headers?: Record<string, string>): Result => ({ status, body, headers });
const detail = (status: number, message: string, headers?: Record<string, string>) => json(status, { detail: message }, headers);
const fieldErrors = (errors: FieldErrors) => json(400, errors);
const NOT_FOUND = () => detail(404, 'Not found.');

function splitUrl(url: string): { path: string; search: string } {
	const i = url.indexOf('?');
	return i < 0 ? { path: url, search: '' } : { path: url.slice(0, i), search: url.slice(i + 1) };
}

function queryObject(q: URLSearchParams): Record<string, string | string[]> {
	const out: Record<string, string | string[]> = {};
	for (const [k, v] of q) {
		const prev = out[k];
		if (prev === undefined) out[k] = v;
		else out[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
	}
	return out;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Body of a JSON request: 415 for another content type, 400 for invalid JSON or a non-object. */
function readJsonObject(req: FastifyRequest): { value?: Record<string, unknown>; error?: Result } {
	const raw = req.body as Buffer | undefined;
	const hasBody = raw !== undefined && raw !== null && raw.length > 0;
	const ct = req.headers['content-type'];
	if (!hasBody) return { value: {} };
	const media = typeof ct === 'string' ? ct.split(';')[0].trim().toLowerCase() : '';
	if (media !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(media)) {
		return { error: detail(415, `Unsupported media type "${ct ?? ''}" in request: send JSON with Content-Type: application/json.`) };
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw.toString('utf8'));
	} catch (e) {
		return { error: detail(400, `JSON parse error - ${(e as Error).message}`) };
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		const got = parsed === null ? 'null' : Array.isArray(parsed) ? 'list' : typeof parsed;
		return { error: fieldErrors({ non_field_errors: [`Invalid data. Expected a dictionary, but got ${got}.`] }) };
	}
	return { value: parsed as Record<string, unknown> };
}

function unknownKeys(body: Record<string, unknown>, allowed: readonly string[]): FieldErrors {
	const errors: FieldErrors = {};
	for (const k of Object.keys(body)) if (!allowed.includes(k)) errors[k] = [`Unknown field; expected only ${allowed.join(', ')}.`];
	return errors;
}

function pageParams(q: URLSearchParams, defaultSize: number): { page: number; size: number; errors?: FieldErrors } {
	const errors: FieldErrors = {};
	let page = 1;
	let size = defaultSize;
	const p = q.get('page');
	if (p !== null && p.trim() !== '') {
		if (!/^\d+$/.test(p.trim()) || Number(p) < 1) errors.page = [`"${p}" is not a valid page number: expected a positive integer.`];
		else page = Number(p);
	}
	const s = q.get('page_size');
	if (s !== null && s.trim() !== '') {
		if (!/^\d+$/.test(s.trim()) || Number(s) < 1) errors.page_size = [`"${s}" is not a valid page size: expected an integer from 1 to ${MAX_PAGE_SIZE}.`];
		else size = Math.min(Number(s), MAX_PAGE_SIZE);
	}
	return Object.keys(errors).length ? { page, size, errors } : { page, size };
}

export interface SandboxState {
	cfg: RuntimeConfig;
	store: AppointmentStore;
	webhooks: Map<string, Webhook>;
	deliveries: DeliveryEngine;
}

export async function buildServer(options: SandboxOptions): Promise<{ app: FastifyInstance; state: SandboxState; tokens: string[]; restrictedTokens: string[]; adminToken: string }> {
	const startCfg = initialConfig(options);
	let cfg: RuntimeConfig = { ...startCfg, retrySchedule: [...startCfg.retrySchedule], ca: [...startCfg.ca] };
	const startTokens = options.tokens?.length ? [...options.tokens] : [`sbx_${crypto.randomBytes(18).toString('base64url')}`];
	const startRestricted = [...(options.restrictedTokens ?? [])];
	let tokens = new Set(startTokens);
	let restricted = new Set(startRestricted);
	const adminToken = options.adminToken ?? `sbx_admin_${crypto.randomBytes(18).toString('base64url')}`;
	const maxLogged = options.maxLoggedRequests ?? 100_000;
	const https = options.tls !== undefined;

	const store = new AppointmentStore(cfg.timeZone);
	const webhooks = new Map<string, Webhook>();
	let emails: Array<{ appointment_key: string; to: string; type: string; at: string }> = [];
	let requests: RequestLogEntry[] = [];
	const faults = new Faults();
	const deliveries = new DeliveryEngine(() => cfg);
	let seedWorld: SeedWorld;
	let rand: Rand;

	const seed = (count: number, seedValue: number, now?: string) => {
		let nowMs = Date.now();
		if (now !== undefined) {
			const p = parseDateTime(now, cfg.timeZone);
			if (!p) throw new Error(`Invalid "now": ${now}`);
			nowMs = p.ms;
		}
		store.load(seedAppointments(count, seedValue, nowMs, cfg.timeZone));
		seedWorld = world(seedValue);
		rand = rng(seedValue * 31 + 1_000_003);
	};
	if (options.seed !== undefined && (!Number.isInteger(options.seed) || options.seed < 0)) throw new Error('Invalid sandbox option seed: expected an integer >= 0');
	seed(options.seed ?? 300, options.seedValue ?? 1, options.now);

	// ----- events -----
	const emit = (event: (typeof EVENTS)[number], a: Appointment) => {
		const targets = [...webhooks.values()].filter((w) => w.events.includes(event));
		if (!targets.length) return;
		const body = `{"event":${JSON.stringify(event)},"timestamp":${JSON.stringify(formatInstantMs(Date.now(), cfg.timeZone))},"data":${store.json(a)}}`;
		deliveries.enqueue(event, a.appointment_key, body, targets);
	};

	// ----- server -----
	const app = Fastify({
		logger: false,
		bodyLimit: 1_048_576,
		forceCloseConnections: true,
		return503OnClosing: false,
		...(https ? { https: { cert: options.tls!.cert, key: options.tls!.key } } : {}),
	}) as unknown as FastifyInstance;
	app.removeAllContentTypeParsers();
	app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

	const send = (reply: FastifyReply, r: Result) => {
		reply.code(r.status);
		if (r.headers) for (const [k, v] of Object.entries(r.headers)) reply.header(k, v);
		if (r.status === 204 || (r.body === undefined && r.raw === undefined)) return reply.send();
		reply.header('content-type', 'application/json; charset=utf-8');
		return reply.send(r.raw ?? JSON.stringify(r.body));
	};

	const origin = (req: FastifyRequest) => cfg.nextOrigin ?? `${https ? 'https' : 'http'}://${req.headers.host ?? `${options.host ?? '127.0.0.1'}`}`;
	const link = (req: FastifyRequest, path: string, q: URLSearchParams, set: Record<string, string | undefined>) => {
		const next = new URLSearchParams(q);
		for (const [k, v] of Object.entries(set)) {
			if (v === undefined) next.delete(k);
			else next.set(k, v);
		}
		const qs = next.toString();
		const rel = `${path}${qs ? `?${qs}` : ''}`;
		return cfg.nextLinks === 'relative' ? rel : `${origin(req)}${rel}`;
	};

	type Access = 'full' | 'restricted';
	const bearer = (req: FastifyRequest): string | undefined => {
		const h = req.headers.authorization;
		if (typeof h !== 'string') return undefined;
		const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
		return m ? m[1] : undefined;
	};
	const access = (req: FastifyRequest): Access | undefined => {
		const t = bearer(req);
		if (t === undefined) return undefined;
		if (tokens.has(t)) return 'full';
		if (restricted.has(t)) return 'restricted';
		return undefined;
	};
	const unauthorized = (req: FastifyRequest): Result =>
		req.headers.authorization === undefined
			? detail(401, 'Authentication credentials were not provided.', { 'www-authenticate': 'Bearer realm="api"' })
			: detail(401, 'Invalid token.', { 'www-authenticate': 'Bearer realm="api", error="invalid_token"' });

	// ----- request log (API only) -----
	const logKey = Symbol('log');
	type Logged = FastifyRequest & { [logKey]?: RequestLogEntry };
	app.addHook('onRequest', async (req) => {
		if (!req.url.startsWith('/api/')) return;
		const { path, search } = splitUrl(req.url);
		const a = access(req);
		const entry: RequestLogEntry = {
			method: req.method,
			path: decodeURIComponentSafe(path),
			query: queryObject(new URLSearchParams(search)),
			status: null,
			at: new Date().toISOString(),
			authorized: a === 'full' || (a === 'restricted' && !path.startsWith('/api/v3/webhooks/')),
			fault: null,
		};
		if (requests.length >= maxLogged) requests.splice(0, Math.ceil(maxLogged / 10));
		requests.push(entry);
		(req as Logged)[logKey] = entry;
	});
	app.addHook('onResponse', async (req, reply) => {
		const entry = (req as Logged)[logKey];
		if (entry && entry.status === null) entry.status = reply.statusCode;
	});

	const resetConnection = (req: FastifyRequest, reply: FastifyReply) => {
		const entry = (req as Logged)[logKey];
		if (entry) entry.status = 0;
		reply.hijack();
		const socket = req.raw.socket as Socket & { resetAndDestroy?: () => void };
		if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
		else socket.destroy();
	};

	const faultResult = (f: Fault): Result => {
		const headers: Record<string, string> = {};
		if (f.retryAfter !== undefined) headers['retry-after'] = f.retryAfter;
		const status = f.status!;
		if (f.body === undefined) return { status, headers }; // as a proxy or gateway in front of a service would: no body
		if (typeof f.body === 'string') return { status, raw: f.body, headers };
		return json(status, f.body, headers);
	};

	/** API route: latency, faults (before/after), authentication, permission, handler. */
	const api = (method: string, url: string, handler: (req: FastifyRequest, access: Access) => Result, opts: { webhooks?: boolean } = {}) => {
		app.route({
			method: method as 'GET',
			url,
			handler: async (req, reply) => {
				const latency = cfg.latencyMs + faults.latencyMs;
				if (latency > 0) await sleep(latency);
				const { path, search } = splitUrl(req.url);
				const fault = faults.take(req.method, decodeURIComponentSafe(path), new URLSearchParams(search));
				const entry = (req as Logged)[logKey];
				if (fault && entry) entry.fault = fault.id;
				if (fault && fault.phase === 'before') {
					if (fault.delayMs) await sleep(fault.delayMs);
					if (fault.reset) return resetConnection(req, reply);
					if (fault.status !== undefined) return send(reply, faultResult(fault));
				}
				const a = access(req);
				let result: Result;
				if (a === undefined) result = unauthorized(req);
				else if (opts.webhooks && a !== 'full') result = detail(403, 'You do not have permission to perform this action.');
				else {
					try {
						result = handler(req, a);
					} catch (e) {
						result = detail(500, `Internal sandbox error: ${(e as Error).message}`);
					}
				}
				if (fault && fault.phase === 'after') {
					if (fault.delayMs) await sleep(fault.delayMs);
					if (fault.reset) return resetConnection(req, reply);
					if (fault.status !== undefined) return send(reply, faultResult(fault));
				}
				return send(reply, result);
			},
		});
	};

	/** Admin route: admin token only. */
	const admin = (method: string, url: string, handler: (req: FastifyRequest) => Result | Promise<Result>) => {
		app.route({
			method: method as 'GET',
			url,
			handler: async (req, reply) => {
				if (bearer(req) !== adminToken) {
					return send(
						reply,
						req.headers.authorization === undefined
							? detail(401, 'Admin token required (Authorization: Bearer <admin token>).', { 'www-authenticate': 'Bearer realm="sandbox-admin"' })
							: detail(401, 'Invalid admin token.', { 'www-authenticate': 'Bearer realm="sandbox-admin", error="invalid_token"' }),
					);
				}
				try {
					return send(reply, await handler(req));
				} catch (e) {
					return send(reply, detail(500, `Internal sandbox error: ${(e as Error).message}`));
				}
			},
		});
	};

	/** The appointment named by the path's `:key` (a malformed key names none: 404, as documented). */
	const appointmentParam = (req: FastifyRequest): Appointment | undefined => {
		const k = (req.params as { key?: string }).key;
		return k !== undefined && UUID_RE.test(k) ? store.get(k.toLowerCase()) : undefined;
	};
	const mutationAnswer = (a: Appointment): Result => (cfg.mutationResponse === 'empty' ? { status: 204 } : { status: 200, raw: store.json(a) });

	// ----- appointments -----
	// Whole list answers are cached (as bytes) until the data or the configuration changes: benchmarks re-read the
	// same pages, and the sandbox must not be what they measure.
	const pageCache = new Map<string, Result>();
	let pageCacheStamp = '';
	let pageCacheBytes = 0;
	const PAGE_CACHE_BYTES = 64 * 1024 * 1024;
	api('GET', '/api/v3/appointments/', (req) => {
		const { search } = splitUrl(req.url);
		const stamp = `${store.version}|${JSON.stringify(cfg)}`;
		if (stamp !== pageCacheStamp) {
			pageCache.clear();
			pageCacheBytes = 0;
			pageCacheStamp = stamp;
		}
		const cacheKey = `${req.headers.host}|${search}`;
		const hit = pageCache.get(cacheKey);
		if (hit) return hit;
		const q = new URLSearchParams(search);
		const parsed = parseListFilter(q, cfg.timeZone);
		if (parsed.errors) return fieldErrors(parsed.errors);
		const result = listResponse(req, '/api/v3/appointments/', q, parsed.filter!);
		if (result.status === 200 && typeof result.raw === 'string') {
			const bytes = Buffer.from(result.raw);
			result.raw = bytes;
			while (pageCache.size && (pageCache.size >= 256 || pageCacheBytes + bytes.length > PAGE_CACHE_BYTES)) {
				const oldest = pageCache.keys().next().value as string;
				pageCacheBytes -= (pageCache.get(oldest)!.raw as Buffer).length;
				pageCache.delete(oldest);
			}
			if (bytes.length <= PAGE_CACHE_BYTES) {
				pageCache.set(cacheKey, result);
				pageCacheBytes += bytes.length;
			}
		}
		return result;
	});

	const listResponse = (req: FastifyRequest, path: string, q: URLSearchParams, filter: ListFilter): Result => {
		if (cfg.pagination === 'none') {
			const { items } = store.page(filter, 0, Infinity);
			return { status: 200, raw: `{"results":[${items.join(',')}]}` };
		}
		const pp = pageParams(q, cfg.pageSize);
		if (pp.errors?.page_size) return fieldErrors({ page_size: pp.errors.page_size });
		if (pp.errors && cfg.pagination === 'page') return fieldErrors(pp.errors);
		const size = pp.size;
		if (cfg.pagination === 'page') {
			const page = pp.page;
			const { count, items } = store.page(filter, (page - 1) * size, size);
			const pages = Math.max(1, Math.ceil(count / size));
			if (page > pages) return detail(404, 'Invalid page.');
			const next = page < pages ? JSON.stringify(link(req, path, q, { page: String(page + 1) })) : 'null';
			const previous = page > 1 ? JSON.stringify(link(req, path, q, { page: page === 2 ? undefined : String(page - 1) })) : 'null';
			return { status: 200, raw: `{"count":${count},"next":${next},"previous":${previous},"results":[${items.join(',')}]}` };
		}
		// cursor: keyset on (start, appointment_key); the cursor is opaque base64url JSON.
		const c = q.get('cursor');
		let from = 0;
		let to: number | undefined;
		if (c !== null && c !== '') {
			const pos = decodeCursor(c);
			if (!pos) return fieldErrors({ cursor: [`"${c}" is not a valid cursor: use the "next" or "previous" link as given.`] });
			if (pos.d === 'n') from = store.positionAfter(filter, pos.s, pos.k, true);
			else {
				to = store.positionAfter(filter, pos.s, pos.k, false);
				from = Math.max(0, to - size);
			}
		}
		const { count, items, first, last } = store.page(filter, from, to === undefined ? size : to - from);
		const end = from + items.length;
		const next = end < count && last ? JSON.stringify(link(req, path, q, { cursor: encodeCursor({ d: 'n', s: last.start, k: last.appointment_key }) })) : 'null';
		const previous = from > 0 && first ? JSON.stringify(link(req, path, q, { cursor: encodeCursor({ d: 'p', s: first.start, k: first.appointment_key }) })) : 'null';
		return { status: 200, raw: `{"next":${next},"previous":${previous},"results":[${items.join(',')}]}` };
	};

	api('GET', '/api/v3/appointments/:key/', (req) => {
		const a = appointmentParam(req);
		return a ? { status: 200, raw: store.json(a) } : NOT_FOUND();
	});

	api('PATCH', '/api/v3/appointments/:key/', (req) => {
		const a = appointmentParam(req);
		if (!a) return NOT_FOUND();
		const body = readJsonObject(req);
		if (body.error) return body.error;
		const b = body.value!;
		const errors = unknownKeys(b, ['status']);
		if (!('status' in b)) errors.status = ['This field is required.'];
		else if (!isStatus(b.status)) errors.status = [`"${String(b.status)}" is not a valid choice; expected one of ${STATUSES.join(', ')}.`];
		if (Object.keys(errors).length) return fieldErrors(errors);
		const next = b.status as Status;
		if (!TRANSITIONS[a.status].includes(next)) {
			return fieldErrors({ status: [`Cannot change the status of a cancelled appointment (${a.status}) to ${next}.`] });
		}
		if (next !== a.status) {
			store.update(a.appointment_key, (x) => {
				x.status = next;
				x.is_cancelled = CANCELLED_STATUSES.has(next);
			});
			emit('appointment.updated', a);
		}
		return mutationAnswer(a);
	});

	api('PATCH', '/api/v3/appointments/:key/reschedule/', (req) => {
		const a = appointmentParam(req);
		if (!a) return NOT_FOUND();
		const body = readJsonObject(req);
		if (body.error) return body.error;
		const b = body.value!;
		const errors = unknownKeys(b, ['start_date']);
		let start: number | undefined;
		if (!('start_date' in b)) errors.start_date = ['This field is required.'];
		else if (typeof b.start_date !== 'string') errors.start_date = ['Expected an ISO 8601 datetime string with a UTC offset.'];
		else {
			const p = parseDateTime(b.start_date, cfg.timeZone);
			if (!p || !p.hasTime) errors.start_date = [`"${b.start_date}" is not a valid datetime: expected ISO 8601 with a UTC offset, e.g. 2026-11-24T10:30:00-03:00.`];
			else if (!p.hasOffset) errors.start_date = [`"${b.start_date}" has no UTC offset: expected ISO 8601 with a UTC offset, e.g. ${b.start_date}-03:00 or ${b.start_date}Z.`];
			else start = p.ms;
		}
		if (Object.keys(errors).length) return fieldErrors(errors);
		if (a.is_cancelled) return fieldErrors({ non_field_errors: [`A cancelled appointment (${a.status}) cannot be rescheduled.`] });
		if (start !== a.start) {
			store.update(a.appointment_key, (x) => {
				x.start = start!;
			});
			emit('appointment.updated', a);
		}
		return mutationAnswer(a);
	});

	api('DELETE', '/api/v3/appointments/:key/', (req) => {
		const a = appointmentParam(req);
		if (!a) return NOT_FOUND();
		const q = new URLSearchParams(splitUrl(req.url).search);
		const raw = q.getAll('send_email').pop();
		let sendEmail = false;
		if (raw !== undefined && raw.trim() !== '') {
			const b = parseBoolean(raw);
			if (b === undefined) return fieldErrors({ send_email: [`"${raw}" is not a valid boolean: expected true or false.`] });
			sendEmail = b;
		}
		if (a.is_cancelled) {
			// Already cancelled: nothing changes and no event. The switch lets clients be tested against services that
			// e-mail again or answer 404 to a repeated cancel.
			if (cfg.repeatCancel === 'not-found') return NOT_FOUND();
			if (cfg.repeatCancel === 'email-again' && sendEmail) {
				emails.push({ appointment_key: a.appointment_key, to: a.person.email, type: 'cancellation', at: new Date().toISOString() });
			}
			return mutationAnswer(a);
		}
		store.update(a.appointment_key, (x) => {
			x.status = 'CANCELED';
			x.is_cancelled = true;
		});
		if (sendEmail) emails.push({ appointment_key: a.appointment_key, to: a.person.email, type: 'cancellation', at: new Date().toISOString() });
		emit('appointment.canceled', a);
		return mutationAnswer(a);
	});

	// ----- webhooks -----
	const validateWebhook = (b: Record<string, unknown>): { errors?: FieldErrors; url?: string; events?: string[] } => {
		const errors = unknownKeys(b, ['url', 'events']);
		let url: string | undefined;
		let events: string[] | undefined;
		if (!('url' in b)) errors.url = ['This field is required.'];
		else if (typeof b.url !== 'string' || b.url.trim() === '') errors.url = ['Enter a valid URL.'];
		else {
			let u: URL | undefined;
			try {
				u = new URL(b.url.trim());
			} catch {
				errors.url = [`"${b.url}" is not a valid URL.`];
			}
			if (u) {
				const okScheme = u.protocol === 'https:' || (cfg.allowInsecureCallbacks && u.protocol === 'http:');
				if (!okScheme) errors.url = [`The callback URL must use HTTPS (got "${u.protocol.replace(':', '')}").`];
				else if (!u.hostname) errors.url = ['The callback URL has no host.'];
				else if (u.username || u.password) errors.url = ['The callback URL must not contain credentials.'];
				else if (b.url.length > 2048) errors.url = ['Ensure this field has no more than 2048 characters.'];
				else url = b.url.trim();
			}
		}
		if (!('events' in b)) errors.events = ['This field is required.'];
		else if (!Array.isArray(b.events)) errors.events = [`Expected a list of event names (${EVENTS.join(', ')}).`];
		else if (b.events.length === 0) errors.events = ['This list may not be empty: subscribe to at least one event.'];
		else {
			const bad = b.events.filter((e) => typeof e !== 'string' || !(EVENTS as readonly string[]).includes(e));
			if (bad.length) errors.events = bad.map((e) => `"${String(e)}" is not a valid event; expected one of ${EVENTS.join(', ')}.`);
			else events = [...new Set(b.events as string[])];
		}
		return Object.keys(errors).length ? { errors } : { url, events };
	};

	api(
		'GET',
		'/api/v3/webhooks/',
		(req) => {
			const all = [...webhooks.values()];
			if (cfg.webhookList === 'array') return json(200, all);
			const q = new URLSearchParams(splitUrl(req.url).search);
			const pp = pageParams(q, cfg.pageSize);
			if (pp.errors) return fieldErrors(pp.errors);
			const page = pp.page;
			const size = pp.size;
			const pages = Math.max(1, Math.ceil(all.length / size));
			if (page > pages) return detail(404, 'Invalid page.');
			return json(200, {
				count: all.length,
				next: page < pages ? link(req, '/api/v3/webhooks/', q, { page: String(page + 1) }) : null,
				previous: page > 1 ? link(req, '/api/v3/webhooks/', q, { page: page === 2 ? undefined : String(page - 1) }) : null,
				results: all.slice((page - 1) * size, page * size),
			});
		},
		{ webhooks: true },
	);

	api(
		'POST',
		'/api/v3/webhooks/',
		(req) => {
			const body = readJsonObject(req);
			if (body.error) return body.error;
			const v = validateWebhook(body.value!);
			if (v.errors) return fieldErrors(v.errors);
			const w: Webhook = { webhook_key: crypto.randomUUID(), url: v.url!, events: v.events!, created_at: formatInstant(Date.now(), cfg.timeZone) };
			webhooks.set(w.webhook_key, w);
			return json(201, w);
		},
		{ webhooks: true },
	);

	api(
		'PUT',
		'/api/v3/webhooks/:key/',
		(req) => {
			const key = (req.params as { key: string }).key.toLowerCase();
			const w = webhooks.get(key);
			if (!w) return NOT_FOUND();
			const body = readJsonObject(req);
			if (body.error) return body.error;
			const v = validateWebhook(body.value!);
			if (v.errors) return fieldErrors(v.errors);
			w.url = v.url!;
			w.events = v.events!;
			return json(200, w);
		},
		{ webhooks: true },
	);

	api(
		'DELETE',
		'/api/v3/webhooks/:key/',
		(req) => {
			const key = (req.params as { key: string }).key.toLowerCase();
			if (!webhooks.delete(key)) return NOT_FOUND();
			return { status: 204 };
		},
		{ webhooks: true },
	);

	// ----- admin -----
	const createSchema = z
		.object({
			appointment_key: z.string().regex(UUID_RE, 'Expected a UUID.').optional(),
			search_code: z.string().min(1).max(64).optional(),
			status: z.enum(STATUSES).optional(),
			start_date: z.string().optional(),
			calendar: z.object({ calendar_key: z.string().regex(UUID_RE, 'Expected a UUID.'), name: z.string().min(1).optional() }).strict().optional(),
			person: z.object({ full_name: z.string().min(1).optional(), email: z.string().min(3).optional() }).strict().optional(),
			client_key: z.string().regex(UUID_RE, 'Expected a UUID.').optional(),
			person_key: z.string().regex(UUID_RE, 'Expected a UUID.').optional(),
			phone: z.string().optional(),
			identification_code: z.string().optional(),
			external_id: z.string().nullable().optional(),
			service_keys: z.array(z.string().regex(UUID_RE, 'Expected a UUID.')).optional(),
			tag_keys: z.array(z.string().regex(UUID_RE, 'Expected a UUID.')).optional(),
			owner_user: z.string().optional(),
			created_at: z.string().optional(),
			is_cancelled: z.boolean().optional(),
		})
		.strict();

	admin('POST', '/__sandbox/appointments/', (req) => {
		const body = readJsonObject(req);
		if (body.error) return body.error;
		const parsed = createSchema.safeParse(body.value);
		if (!parsed.success) return fieldErrors(zodFieldErrors(parsed.error.issues));
		const b = parsed.data;
		const errors: FieldErrors = {};
		const dateField = (f: 'start_date' | 'created_at') => {
			const v = b[f];
			if (v === undefined) return undefined;
			const p = parseDateTime(v, cfg.timeZone);
			if (!p) errors[f] = [`"${v}" is not a valid datetime: expected ISO 8601 (an offset-less value is read in ${cfg.timeZone}).`];
			return p?.ms;
		};
		const start = dateField('start_date');
		const created = dateField('created_at');
		if (b.appointment_key && store.has(b.appointment_key)) errors.appointment_key = ['An appointment with this key already exists.'];
		if (b.search_code && store.hasSearchCode(b.search_code)) errors.search_code = ['An appointment with this search code already exists.'];
		const status: Status = b.status ?? (b.is_cancelled ? 'CANCELED' : 'CONFIRMED');
		if (b.is_cancelled !== undefined && b.is_cancelled !== CANCELLED_STATUSES.has(status)) {
			errors.is_cancelled = [`is_cancelled must be ${CANCELLED_STATUSES.has(status)} for status ${status}.`];
		}
		if (Object.keys(errors).length) return fieldErrors(errors);
		const now = Date.now();
		const defaultStart = now + (1 + Math.floor(rand() * 7 * 24 * 4)) * 15 * 60_000;
		const g = generateAppointment(rand, seedWorld, start ?? defaultStart - (defaultStart % (15 * 60_000)), status, created ?? now);
		while (store.has(g.appointment_key)) g.appointment_key = uuid(rand);
		while (store.hasSearchCode(g.search_code)) g.search_code = searchCode(rand);
		const known = b.calendar && seedWorld.calendars.find((c) => c.calendar_key === b.calendar!.calendar_key.toLowerCase());
		const a: Appointment = {
			...g,
			appointment_key: b.appointment_key?.toLowerCase() ?? g.appointment_key,
			search_code: b.search_code ?? g.search_code,
			calendar: b.calendar
				? { calendar_key: b.calendar.calendar_key.toLowerCase(), name: b.calendar.name ?? known?.name ?? 'Calendar' }
				: g.calendar,
			person: { full_name: b.person?.full_name ?? g.person.full_name, email: b.person?.email ?? g.person.email },
			client_key: b.client_key?.toLowerCase() ?? g.client_key,
			person_key: b.person_key?.toLowerCase() ?? g.person_key,
			phone: b.phone ?? g.phone,
			identification_code: b.identification_code ?? g.identification_code,
			external_id: b.external_id !== undefined ? b.external_id : g.external_id,
			service_keys: b.service_keys?.map((k) => k.toLowerCase()) ?? g.service_keys,
			tag_keys: b.tag_keys?.map((k) => k.toLowerCase()) ?? g.tag_keys,
			owner_user: b.owner_user ?? g.owner_user,
		};
		store.insert(a);
		emit('appointment.created', a);
		return json(201, internalRecord(a, cfg.timeZone));
	});

	admin('GET', '/__sandbox/appointments/', () => {
		const all = store.all().map((a) => internalRecord(a, cfg.timeZone));
		return json(200, { count: all.length, appointments: all });
	});

	admin('GET', '/__sandbox/appointments/:key/', (req) => {
		const a = appointmentParam(req);
		return a ? json(200, internalRecord(a, cfg.timeZone)) : NOT_FOUND();
	});

	const resetSchema = z
		.object({ seed: z.number().int().min(0).max(1_000_000).optional(), seedValue: z.number().int().optional(), now: z.string().optional() })
		.strict();
	admin('POST', '/__sandbox/reset/', (req) => {
		const body = readJsonObject(req);
		if (body.error) return body.error;
		const parsed = resetSchema.safeParse(body.value);
		if (!parsed.success) return fieldErrors(zodFieldErrors(parsed.error.issues));
		const now = parsed.data.now ?? options.now;
		if (now !== undefined && !parseDateTime(now, startCfg.timeZone)) return fieldErrors({ now: [`"${now}" is not a valid datetime.`] });
		cfg = { ...startCfg, retrySchedule: [...startCfg.retrySchedule], ca: [...startCfg.ca] };
		tokens = new Set(startTokens);
		restricted = new Set(startRestricted);
		store.setZone(cfg.timeZone);
		deliveries.reset();
		deliveries.configChanged();
		webhooks.clear();
		emails = [];
		requests = [];
		faults.clear();
		seed(parsed.data.seed ?? options.seed ?? 300, parsed.data.seedValue ?? options.seedValue ?? 1, now);
		return json(200, { appointments: store.size });
	});

	admin('GET', '/__sandbox/deliveries/', (req) => {
		const q = new URLSearchParams(splitUrl(req.url).search);
		const stats = deliveries.stats();
		if (parseBoolean(q.get('summary') ?? '') === true) return json(200, stats);
		let list = deliveries.log;
		for (const f of ['event', 'appointment_key', 'webhook_key', 'event_id'] as const) {
			const v = q.get(f);
			if (v) list = list.filter((d) => d[f] === v);
		}
		return json(200, { ...stats, deliveries: list });
	});
	admin('DELETE', '/__sandbox/deliveries/', () => {
		deliveries.clearLog();
		return { status: 204 };
	});

	admin('GET', '/__sandbox/requests/', () => json(200, { requests }));
	admin('DELETE', '/__sandbox/requests/', () => {
		requests = [];
		return { status: 204 };
	});

	admin('GET', '/__sandbox/emails/', () => json(200, { emails }));
	admin('DELETE', '/__sandbox/emails/', () => {
		emails = [];
		return { status: 204 };
	});

	admin('GET', '/__sandbox/webhooks/', () => json(200, { webhooks: [...webhooks.values()] }));

	admin('GET', '/__sandbox/faults/', () => json(200, { faults: faults.active(), latencyMs: faults.latencyMs }));
	admin('POST', '/__sandbox/faults/', (req) => {
		const body = readJsonObject(req);
		if (body.error) return body.error;
		const parsed = faultSpec.safeParse(body.value);
		if (!parsed.success) return fieldErrors(zodFieldErrors(parsed.error.issues));
		const spec = parsed.data;
		if (spec.latencyMs === undefined && spec.status === undefined && spec.delayMs === undefined && !spec.reset) {
			return fieldErrors({ non_field_errors: ['Give at least one of status, delayMs, reset (a fault) or latencyMs.'] });
		}
		if (spec.retryAfter !== undefined && spec.status === undefined) return fieldErrors({ retryAfter: ['retryAfter needs a status.'] });
		const fault = faults.add(spec);
		return json(201, { fault: fault ?? null, faults: faults.active(), latencyMs: faults.latencyMs });
	});
	admin('DELETE', '/__sandbox/faults/', () => {
		faults.clear();
		return { status: 204 };
	});

	const publicConfig = () => ({ ...cfg, ca: cfg.ca.length, tokens: tokens.size, restrictedTokens: restricted.size });
	admin('GET', '/__sandbox/config/', () => json(200, publicConfig()));
	admin('POST', '/__sandbox/config/', (req) => {
		const body = readJsonObject(req);
		if (body.error) return body.error;
		const parsed = runtimeConfigPatch.safeParse(body.value);
		if (!parsed.success) return fieldErrors(zodFieldErrors(parsed.error.issues));
		const { ca, tokens: t, restrictedTokens: r, ...rest } = parsed.data;
		cfg = { ...cfg, ...rest, ...(ca !== undefined ? { ca: caList(ca) } : {}) };
		if (t) tokens = new Set(t);
		if (r) restricted = new Set(r);
		store.setZone(cfg.timeZone);
		deliveries.configChanged();
		return json(200, publicConfig());
	});

	// ----- not found / method not allowed / errors -----
	const routes: Array<[RegExp, string[]]> = [
		[/^\/api\/v3\/appointments\/$/, ['GET']],
		[/^\/api\/v3\/appointments\/[^/]+\/$/, ['GET', 'PATCH', 'DELETE']],
		[/^\/api\/v3\/appointments\/[^/]+\/reschedule\/$/, ['PATCH']],
		[/^\/api\/v3\/webhooks\/$/, ['GET', 'POST']],
		[/^\/api\/v3\/webhooks\/[^/]+\/$/, ['PUT', 'DELETE']],
	];
	app.setNotFoundHandler((req, reply) => {
		const { path } = splitUrl(req.url);
		const route = routes.find(([re]) => re.test(path));
		if (route && !route[1].includes(req.method)) {
			if (access(req) === undefined) return send(reply, unauthorized(req));
			return send(reply, detail(405, `Method "${req.method}" not allowed.`, { allow: route[1].join(', ') }));
		}
		return send(reply, NOT_FOUND());
	});
	app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _req, reply) => {
		const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
		let message = err.message;
		if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') message = 'Unsupported media type in request: send JSON with Content-Type: application/json.';
		if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') message = 'Request body too large (limit 1 MiB).';
		return send(reply, detail(status, message));
	});

	return {
		app,
		state: {
			get cfg() {
				return cfg;
			},
			store,
			webhooks,
			deliveries,
		},
		tokens: startTokens,
		restrictedTokens: startRestricted,
		adminToken,
	};
}

function decodeURIComponentSafe(s: string): string {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
	}
}

interface CursorPos {
	d: 'n' | 'p';
	s: number;
	k: string;
}
function encodeCursor(c: CursorPos): string {
	return Buffer.from(JSON.stringify(c)).toString('base64url');
}
function decodeCursor(text: string): CursorPos | undefined {
	try {
		const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
		if ((c?.d === 'n' || c?.d === 'p') && Number.isFinite(c.s) && typeof c.k === 'string') return c as CursorPos;
	} catch {
		/* invalid */
	}
	return undefined;
}
