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
 *
 * The local mail sink: start the sandbox with `{ smtpPort: 0 }` (any free port; `sb.smtpPort` tells which), then
 *   smtpCredential(sb)   the data of n8n's SMTP credential pointing at it (as `npm run dev` imports it)
 *   readMailbox(baseUrl, adminToken)   GET /__sandbox/mailbox/: the messages, newest first
 *   waitForMail(baseUrl, adminToken, match, timeoutMs?)   polls the mailbox until a message matches; returns it
 */
import { startSandbox, type MailMessage, type SandboxOptions } from '../../sandbox';
import { poll } from './poll';
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

export async function startTestSandbox(
	tokens: SandboxTokens,
	options: Partial<SandboxOptions> = {},
): Promise<Sandbox> {
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
		if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type'))
			h['content-type'] = 'application/json';
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

export async function adminRequest<T = any>(
	baseUrl: string,
	adminToken: string,
	method: string,
	path: string,
	body?: unknown,
): Promise<T> {
	const res = await sandboxFetch<T>(`${baseUrl}${path}`, method, adminToken, asJson(body));
	if (res.status >= 400) throw new Error(`admin ${method} ${path} -> ${res.status} ${res.text}`);
	return res.body;
}

export type { MailMessage };

/** The data of n8n's SMTP credential (type `smtp`) for the sandbox's mail sink: no TLS, no user. */
export function smtpCredential(sb: Sandbox) {
	if (sb.smtpPort === undefined)
		throw new Error('the sandbox was started without its mail sink: pass { smtpPort: 0 }');
	return {
		user: '',
		password: '',
		host: '127.0.0.1',
		port: sb.smtpPort,
		secure: false,
		disableStartTls: true,
		hostName: '',
	};
}

export async function readMailbox(baseUrl: string, adminToken: string): Promise<MailMessage[]> {
	return (
		await adminRequest<{ results: MailMessage[] }>(
			baseUrl,
			adminToken,
			'GET',
			'/__sandbox/mailbox/',
		)
	).results;
}

export async function waitForMail(
	baseUrl: string,
	adminToken: string,
	match: (m: MailMessage) => boolean,
	timeoutMs = 10000,
): Promise<MailMessage> {
	return await poll<MailMessage>(
		'a matching message in the sandbox mailbox',
		async () => (await readMailbox(baseUrl, adminToken)).find(match),
		(m) => m !== undefined,
		{
			timeoutMs,
			intervalMs: 50,
			describe: (what, ms, { lastError }) =>
				`timed out after ${ms} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
		},
	);
}
