/**
 * Talking to the sandbox from the tests, written once: start it on loopback with a suite's own tokens, send a
 * request with a bearer token, and call its admin API (`/__sandbox/...`).
 *
 *   startTestSandbox({ token, limited?, admin }, options?)   startSandbox on 127.0.0.1, port 0; options on top
 *   sandboxFetch(url, method, token | undefined, body?, headers?)  -> { status, headers, body, text }
 *       a JSON body (a string is sent as it is), content-type application/json unless `headers` names one;
 *       the answer parsed as JSON, or its text when it is not JSON
 *   adminRequest(baseUrl, adminToken, method, path, body?)  -> the parsed answer; throws on a 4xx/5xx answer
 *   LoggedRequest, Delivery   entries of the admin API's request and delivery logs
 *   asJson(body)   the body JSON-encoded even when it is a string (undefined stays undefined), for sandboxFetch
 */
import { startSandbox, type SandboxOptions } from '../../sandbox';
import type { DeliveryLogEntry } from '../../sandbox/deliveries';
import type { RequestLogEntry } from '../../sandbox/server';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** One entry of the sandbox's request log (GET /__sandbox/requests/); admin requests are never logged. */
export type LoggedRequest = RequestLogEntry;

/** One attempt of the sandbox's delivery log (GET /__sandbox/deliveries/). */
export type Delivery = DeliveryLogEntry;

export interface SandboxTokens {
	/** The full-access API token. */
	token: string;
	/** A token the sandbox accepts but refuses writes with. */
	limited?: string;
	admin: string;
}

export async function startTestSandbox(tokens: SandboxTokens, options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
	return await startSandbox({
		port: 0,
		host: '127.0.0.1',
		tokens: [tokens.token],
		...(tokens.limited === undefined ? {} : { restrictedTokens: [tokens.limited] }),
		adminToken: tokens.admin,
		...options,
	} as SandboxOptions);
}

export interface SandboxResponse<T = any> {
	status: number;
	headers: Headers;
	body: T;
	text: string;
}

export async function sandboxFetch<T = any>(
	url: string,
	method: string,
	token: string | undefined,
	body?: unknown,
	headers: Record<string, string> = {},
): Promise<SandboxResponse<T>> {
	const h: Record<string, string> = { ...headers };
	if (token !== undefined) h.authorization = `Bearer ${token}`;
	let payload: string | undefined;
	if (body !== undefined) {
		payload = typeof body === 'string' ? body : JSON.stringify(body);
		if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['content-type'] = 'application/json';
	}
	const res = await fetch(url, { method, headers: h, body: payload });
	const text = await res.text();
	let parsed: unknown;
	try {
		parsed = text ? JSON.parse(text) : undefined;
	} catch {
		parsed = text;
	}
	return { status: res.status, headers: res.headers, body: parsed as T, text };
}

export function asJson(body: unknown): string | undefined {
	return body === undefined ? undefined : JSON.stringify(body);
}

export async function adminRequest<T = any>(baseUrl: string, adminToken: string, method: string, path: string, body?: unknown): Promise<T> {
	const res = await sandboxFetch<T>(`${baseUrl}${path}`, method, adminToken, asJson(body));
	if (res.status >= 400) throw new Error(`admin ${method} ${path} -> ${res.status} ${res.text}`);
	return res.body;
}
