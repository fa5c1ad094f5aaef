/**
 * Pure helpers of the transport (no n8n context, no I/O), unit-tested in test/transport/utils.test.ts.
 *
 *   normaliseBaseUrl(raw: string): string                      'https://x/api/v3/' -> 'https://x'
 *   buildApiUrl(baseUrl: string, path: string, qs?: IDataObject): string
 *   encodeQuery(qs?: IDataObject): string                      arrays as repeated parameters: a=1&a=2
 *   resolveSameOrigin(baseUrl: string, link: string, current: string): string | undefined  (undefined = foreign)
 *   parseRetryAfter(value: unknown, nowMs?: number): number | undefined                      (milliseconds)
 *   backoffDelay(attempt: number, baseDelayMs: number, capMs: number, random?: () => number): number
 *   formatErrorBody(body: unknown): string                    one readable line from any JSON error body
 *   redact(text: string, secrets: string[]): string
 */
import type { IDataObject } from 'n8n-workflow';

export const API_PREFIX = '/api/v3/';

/** Strips whitespace, trailing slashes and a trailing `/api/v3` (any case), then trailing slashes again. */
export function normaliseBaseUrl(raw: string): string {
	let url = String(raw ?? '').trim();
	url = url.replace(/\/+$/, '');
	url = url.replace(/\/api\/v3$/i, '');
	url = url.replace(/\/+$/, '');
	return url;
}

function appendValue(params: URLSearchParams, key: string, value: unknown): void {
	if (value === undefined || value === null) return;
	if (Array.isArray(value)) {
		for (const v of value) appendValue(params, key, v);
		return;
	}
	if (typeof value === 'object') {
		params.append(key, JSON.stringify(value));
		return;
	}
	params.append(key, String(value));
}

/** Encodes a query; arrays become repeated parameters (`service_keys=a&service_keys=b`); undefined/null are dropped. */
export function encodeQuery(qs?: IDataObject): string {
	if (!qs) return '';
	const params = new URLSearchParams();
	for (const [key, value] of Object.entries(qs)) appendValue(params, key, value);
	return params.toString();
}

/**
 * Absolute URL of an API path. `path` is relative to `/api/v3/` and must end with `/`; it may not be absolute,
 * start with `/`, or contain `..` segments (so it can never leave the credential's origin).
 */
export function buildApiUrl(baseUrl: string, path: string, qs?: IDataObject): string {
	if (typeof path !== 'string' || path.length === 0) throw new Error('API path must be a non-empty string');
	if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/') || path.startsWith('\\')) {
		throw new Error(`API path must be relative to ${API_PREFIX} (got "${path}")`);
	}
	const [pathOnly] = path.split('?');
	if (!pathOnly.endsWith('/')) throw new Error(`API path must end with "/" (got "${path}")`);
	if (pathOnly.split('/').some((segment) => segment === '..' || segment === '.')) {
		throw new Error(`API path may not contain "." or ".." segments (got "${path}")`);
	}
	const query = encodeQuery(qs);
	let url = `${normaliseBaseUrl(baseUrl)}${API_PREFIX}${path}`;
	if (query) url += (url.includes('?') ? '&' : '?') + query;
	return url;
}

export function originOf(url: string): string | undefined {
	try {
		return new URL(url).origin;
	} catch {
		return undefined;
	}
}

/**
 * Resolves a `next` link (absolute, or relative to the page it came from) and returns it only when it has the
 * base URL's origin; returns undefined for a foreign or unparsable link.
 */
export function resolveSameOrigin(baseUrl: string, link: string, current: string): string | undefined {
	const baseOrigin = originOf(normaliseBaseUrl(baseUrl));
	let resolved: URL;
	try {
		resolved = new URL(link, current);
	} catch {
		return undefined;
	}
	if (!baseOrigin || resolved.origin !== baseOrigin) return undefined;
	if (resolved.username || resolved.password) return undefined;
	resolved.hash = '';
	return resolved.href;
}

/** `Retry-After` in milliseconds: delta-seconds or HTTP-date (past dates give 0); undefined when absent/invalid. */
export function parseRetryAfter(value: unknown, nowMs: number = Date.now()): number | undefined {
	if (Array.isArray(value)) value = value[0];
	if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (text === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	// HTTP-date (IMF-fixdate, RFC 850 or asctime); must name a weekday or a month to count as a date.
	if (!/[a-z]{3}/i.test(text)) return undefined;
	const at = Date.parse(text);
	if (Number.isNaN(at)) return undefined;
	return Math.max(0, at - nowMs);
}

/** Exponential backoff with full jitter: uniform in [0, min(cap, base * 2^(attempt-1))]. attempt starts at 1. */
export function backoffDelay(
	attempt: number,
	baseDelayMs: number,
	capMs: number,
	random: () => number = Math.random,
): number {
	const exp = baseDelayMs * Math.pow(2, Math.max(0, attempt - 1));
	const ceiling = Math.max(0, Math.min(capMs, exp));
	return Math.floor(random() * ceiling);
}

function messagesOf(value: unknown, depth = 0): string[] {
	if (depth > 5 || value === undefined || value === null) return [];
	if (typeof value === 'string') return value.trim() ? [value.trim()] : [];
	if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
	if (Array.isArray(value)) return value.flatMap((v) => messagesOf(v, depth + 1));
	if (typeof value === 'object') {
		const obj = value as Record<string, unknown>;
		for (const key of ['detail', 'message', 'error_description', 'error', 'title', 'msg']) {
			if (key in obj) {
				const found = messagesOf(obj[key], depth + 1);
				if (found.length) return found;
			}
		}
		// Field map: { field: ["msg", ...] } -> "field: msg; msg"
		const out: string[] = [];
		for (const [field, v] of Object.entries(obj)) {
			const msgs = messagesOf(v, depth + 1);
			if (!msgs.length) continue;
			if (field === 'non_field_errors' || field === 'errors') out.push(...msgs);
			else out.push(`${field}: ${msgs.join(' ')}`);
		}
		return out;
	}
	return [];
}

/** One readable message from any error body (JSON text, `detail`/`message`/`error`, field maps, arrays). */
export function formatErrorBody(body: unknown): string {
	let value = body;
	if (typeof value === 'string') {
		const text = value.trim();
		if (text.startsWith('{') || text.startsWith('[')) {
			try {
				value = JSON.parse(text);
			} catch {
				value = text;
			}
		}
	}
	if (typeof value === 'string') {
		// Not JSON (HTML error page etc.): keep it short and strip tags.
		const plain = value.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
		return plain.length > 300 ? `${plain.slice(0, 297)}...` : plain;
	}
	const text = messagesOf(value).join('; ');
	return text.length > 1000 ? `${text.slice(0, 997)}...` : text;
}

export function redact(text: string, secrets: Array<string | undefined>): string {
	let out = text;
	for (const secret of secrets) {
		if (typeof secret === 'string' && secret.length >= 4) out = out.split(secret).join('***');
	}
	return out;
}

export function rawBodyText(body: unknown, max = 2000): string | undefined {
	if (body === undefined || body === null || body === '') return undefined;
	let text: string;
	if (typeof body === 'string') text = body;
	else {
		try {
			text = JSON.stringify(body);
		} catch {
			text = String(body);
		}
	}
	return text.length > max ? `${text.slice(0, max)}...` : text;
}
