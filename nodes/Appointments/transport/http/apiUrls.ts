/** Pure helpers of the transport (no n8n context, no I/O): URLs, queries, Retry-After and backoff. */
import type { IDataObject } from 'n8n-workflow';

const API_PREFIX = '/api/v3/';

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
