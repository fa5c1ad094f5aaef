/** Answers and request parsing shared by the sandbox's plugins: results, JSON bodies, query strings, paging. */
import type { FastifyReply, FastifyRequest } from 'fastify';

import type { SandboxState } from './sandboxState';
import { UUID_RE, fieldErrorMap, type Appointment, type FieldErrors } from './vocabulary';

export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 50;
/** Deepest nesting of arrays/objects a JSON body may have; deeper bodies are refused with 400 before parsing. */
export const MAX_JSON_DEPTH = 32;

export interface Result {
	status: number;
	body?: unknown;
	/** pre-serialised JSON */
	raw?: string | Buffer;
	headers?: Record<string, string>;
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Result => ({
	status,
	body,
	headers,
});
export const detail = (status: number, message: string, headers?: Record<string, string>) =>
	json(status, { detail: message }, headers);
export const fieldErrors = (errors: FieldErrors) => json(400, errors);
export const NOT_FOUND = () => detail(404, 'Not found.');

export function send(reply: FastifyReply, r: Result) {
	reply.code(r.status);
	if (r.headers) for (const [k, v] of Object.entries(r.headers)) reply.header(k, v);
	if (r.status === 204 || (r.body === undefined && r.raw === undefined)) return reply.send();
	reply.header('content-type', 'application/json; charset=utf-8');
	return reply.send(r.raw ?? JSON.stringify(r.body));
}

export function splitUrl(url: string): { path: string; search: string } {
	const i = url.indexOf('?');
	return i < 0 ? { path: url, search: '' } : { path: url.slice(0, i), search: url.slice(i + 1) };
}

/** Query parameters as a plain record (no prototype, so `constructor` and `__proto__` are ordinary names). */
export function queryObject(q: URLSearchParams): Record<string, string | string[]> {
	const out: Record<string, string | string[]> = Object.create(null);
	for (const [k, v] of q) {
		const prev = out[k];
		if (prev === undefined) out[k] = v;
		else out[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
	}
	return out;
}

export function decodeURIComponentSafe(s: string): string {
	try {
		return decodeURIComponent(s);
	} catch {
		return s;
	}
}

/** A value as it may be quoted in an error message, whatever it is (objects without a usable toString included). */
export function describe(v: unknown): string {
	if (typeof v === 'string') return v.length > 200 ? `${v.slice(0, 200)}…` : v;
	let text: string | undefined;
	try {
		text = JSON.stringify(v);
	} catch {
		text = undefined;
	}
	text ??= Object.prototype.toString.call(v);
	return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Nesting depth of a JSON text (brackets outside strings); stops counting past `limit`. */
function jsonDepth(text: string, limit: number): number {
	let depth = 0;
	let max = 0;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (inString) {
			if (c === 92)
				i++; // backslash: skip the escaped character
			else if (c === 34) inString = false;
		} else if (c === 34) inString = true;
		else if (c === 123 || c === 91) {
			if (++depth > max) max = depth;
			if (max > limit) return max;
		} else if (c === 125 || c === 93) depth--;
	}
	return max;
}

/** Path of the first `__proto__` key anywhere in a parsed JSON value. */
function protoKey(v: unknown, path: string[] = []): string | undefined {
	if (v === null || typeof v !== 'object') return undefined;
	if (Array.isArray(v)) {
		for (let i = 0; i < v.length; i++) {
			const p = protoKey(v[i], [...path, String(i)]);
			if (p) return p;
		}
		return undefined;
	}
	for (const k of Object.keys(v)) {
		if (k === '__proto__') return [...path, k].join('.');
		const p = protoKey((v as Record<string, unknown>)[k], [...path, k]);
		if (p) return p;
	}
	return undefined;
}

/**
 * Body of a JSON request: 415 for another content type, 400 for invalid JSON, a body nested deeper than
 * MAX_JSON_DEPTH, a `__proto__` key anywhere (refused like any unknown field) or a non-object.
 */
export function readJsonObject(req: FastifyRequest): {
	value?: Record<string, unknown>;
	error?: Result;
} {
	const raw = req.body as Buffer | undefined;
	const hasBody = raw !== undefined && raw !== null && raw.length > 0;
	const ct = req.headers['content-type'];
	if (!hasBody) return { value: {} };
	const media = typeof ct === 'string' ? ct.split(';')[0].trim().toLowerCase() : '';
	if (media !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(media)) {
		return {
			error: detail(
				415,
				`Unsupported media type "${ct ?? ''}" in request: send JSON with Content-Type: application/json.`,
			),
		};
	}
	const text = raw.toString('utf8');
	if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
		return {
			error: detail(400, `JSON parse error - nested deeper than ${MAX_JSON_DEPTH} levels.`),
		};
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (e) {
		return { error: detail(400, `JSON parse error - ${(e as Error).message}`) };
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		const got = parsed === null ? 'null' : Array.isArray(parsed) ? 'list' : typeof parsed;
		return {
			error: fieldErrors({
				non_field_errors: [`Invalid data. Expected a dictionary, but got ${got}.`],
			}),
		};
	}
	const proto = protoKey(parsed);
	if (proto) return { error: fieldErrors({ [proto]: ['Unknown field.'] }) };
	return { value: parsed as Record<string, unknown> };
}

export function unknownKeys(
	body: Record<string, unknown>,
	allowed: readonly string[],
): FieldErrors {
	const errors = fieldErrorMap();
	for (const k of Object.keys(body))
		if (!allowed.includes(k)) errors[k] = [`Unknown field; expected only ${allowed.join(', ')}.`];
	return errors;
}

export function pageParams(
	q: URLSearchParams,
	defaultSize: number,
): { page: number; size: number; errors?: FieldErrors } {
	const errors = fieldErrorMap();
	let page = 1;
	let size = defaultSize;
	const p = q.get('page');
	if (p !== null && p.trim() !== '') {
		if (!/^\d+$/.test(p.trim()) || Number(p) < 1)
			errors.page = [`"${describe(p)}" is not a valid page number: expected a positive integer.`];
		else page = Number(p);
	}
	const s = q.get('page_size');
	if (s !== null && s.trim() !== '') {
		if (!/^\d+$/.test(s.trim()) || Number(s) < 1)
			errors.page_size = [
				`"${describe(s)}" is not a valid page size: expected an integer from 1 to ${MAX_PAGE_SIZE}.`,
			];
		else size = Math.min(Number(s), MAX_PAGE_SIZE);
	}
	return Object.keys(errors).length ? { page, size, errors } : { page, size };
}

/** The appointment named by the path's `:key` (a malformed key names none: 404, as documented). */
export function appointmentParam(s: SandboxState, req: FastifyRequest): Appointment | undefined {
	const k = (req.params as { key?: string }).key;
	return k !== undefined && UUID_RE.test(k) ? s.store.get(k.toLowerCase()) : undefined;
}

/** Python's `quote_plus`: what `urllib.parse.urlencode` writes (`~` kept, `*`, `!`, `'`, `(`, `)` escaped). */
function quotePlus(text: string): string {
	return encodeURIComponent(text)
		.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
		.replace(/%20/g, '+');
}

/** DRF's `replace_query_param`: `urlencode(sorted(parse_qs(query).items()), doseq=True)`. */
function sortedQuery(params: URLSearchParams): string {
	const names = [...new Set(params.keys())].sort();
	return names
		.flatMap((name) => params.getAll(name).map((v) => `${quotePlus(name)}=${quotePlus(v)}`))
		.join('&');
}

/**
 * `next`/`previous` link: the request's query with `set` applied (in the request's order, or sorted as
 * configured), relative or absolute as configured.
 */
export function pageLink(
	s: SandboxState,
	req: FastifyRequest,
	path: string,
	q: URLSearchParams,
	set: Record<string, string | undefined>,
) {
	const next = new URLSearchParams(q);
	for (const [k, v] of Object.entries(set)) {
		if (v === undefined) next.delete(k);
		else next.set(k, v);
	}
	const qs = s.cfg.linkQueryOrder === 'sorted' ? sortedQuery(next) : next.toString();
	const rel = `${path}${qs ? `?${qs}` : ''}`;
	if (s.cfg.nextLinks === 'relative') return rel;
	const origin =
		s.cfg.nextOrigin ??
		`${s.options.tls ? 'https' : 'http'}://${req.headers.host ?? s.options.host ?? '127.0.0.1'}`;
	return `${origin}${rel}`;
}
