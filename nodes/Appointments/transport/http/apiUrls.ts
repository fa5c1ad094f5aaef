/** The API's URLs (pure: no n8n context, no I/O): the base URL, paths, queries, origins and `next` links. */
import type { IDataObject } from 'n8n-workflow';

const API_PREFIX = '/api/v3/';

export function normaliseBaseUrl(raw: string): string {
	return String(raw ?? '')
		.trim()
		.replace(/\/+$/, '')
		.replace(/\/api\/v3$/i, '')
		.replace(/\/+$/, '');
}

function appendValue(params: URLSearchParams, key: string, value: unknown): void {
	if (Array.isArray(value)) for (const v of value) appendValue(params, key, v);
	else if (value !== undefined && value !== null)
		params.append(key, typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/** Encodes a query; arrays become repeated parameters (`service_keys=a&service_keys=b`); undefined/null are dropped. */
export function encodeQuery(qs?: IDataObject): string {
	const params = new URLSearchParams();
	for (const [key, value] of Object.entries(qs ?? {})) appendValue(params, key, value);
	return params.toString();
}

/** An API path's absolute URL; a path that could leave `/api/v3/` (absolute, `/…`, `.` or `..`) is refused. */
export function buildApiUrl(baseUrl: string, path: string, qs?: IDataObject): string {
	if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/') || path.startsWith('\\'))
		throw new Error(`API path must be relative to ${API_PREFIX} (got "${path}")`);
	const [pathOnly] = path.split('?');
	if (!pathOnly.endsWith('/')) throw new Error(`API path must end with "/" (got "${path}")`);
	if (pathOnly.split('/').some((segment) => segment === '..' || segment === '.'))
		throw new Error(`API path may not contain "." or ".." segments (got "${path}")`);
	const [url, query] = [`${normaliseBaseUrl(baseUrl)}${API_PREFIX}${path}`, encodeQuery(qs)];
	return query ? `${url}${url.includes('?') ? '&' : '?'}${query}` : url;
}

export function originOf(url: string): string | undefined {
	return URL.canParse(url) ? new URL(url).origin : undefined;
}

/** A `next` link (absolute, or relative to its page) resolved, or undefined when it is unparsable or off `origin` (the credential's). */
export function resolveSameOrigin(
	origin: string,
	link: string,
	current: string,
): string | undefined {
	if (!URL.canParse(link, current)) return undefined;
	const resolved = new URL(link, current);
	if (resolved.origin !== origin || resolved.username || resolved.password) return undefined;
	resolved.hash = '';
	return resolved.href;
}
