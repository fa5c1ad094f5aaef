/** One HTTP attempt through n8n's helper, and what came of it: a response, or a network failure classified. */
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';

import { CREDENTIAL_NAME, type TransportContext } from './credential';

export type Outcome =
	| { kind: 'response'; statusCode: number; headers: IDataObject; body: unknown }
	| { kind: 'network'; code: string; timedOut: boolean; refused: boolean; detail: string };

const NETWORK_CODES = [
	'ECONNRESET',
	'ECONNREFUSED',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EAI_AGAIN',
	'ENOTFOUND',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'UND_ERR_SOCKET',
	'UND_ERR_CONNECT_TIMEOUT',
	'UND_ERR_HEADERS_TIMEOUT',
	'UND_ERR_BODY_TIMEOUT',
	'ERR_CANCELED',
];

/** Finds a network error code in an error (walking cause/errorResponse/reason), reading only code and message. */
function classifyThrown(error: unknown): Outcome & { kind: 'network' } {
	const seen = new Set<unknown>();
	const queue: unknown[] = [error];
	let code = '';
	let timedOut = false;
	const messages: string[] = [];
	while (queue.length && seen.size < 20) {
		const current = queue.shift();
		if (!current || typeof current !== 'object' || seen.has(current)) continue;
		seen.add(current);
		const e = current as Record<string, unknown>;
		if (typeof e.code === 'string' && !code && NETWORK_CODES.includes(e.code)) code = e.code;
		if (typeof e.message === 'string') messages.push(e.message);
		for (const key of ['cause', 'errorResponse', 'reason', 'error']) {
			try {
				if (e[key] && typeof e[key] === 'object') queue.push(e[key]);
			} catch {
				// a getter that throws: skip it
			}
		}
	}
	const text = messages.join(' | ');
	if (!code) {
		const match = NETWORK_CODES.find((c) => text.includes(c));
		if (match) code = match;
	}
	if (/timeout|timed out/i.test(text) || ['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNABORTED'].includes(code)) {
		timedOut = true;
	}
	if (!code) code = timedOut ? 'ETIMEDOUT' : 'EUNKNOWN';
	const refused = code === 'ECONNREFUSED';
	let detail: string;
	if (timedOut) detail = 'the request timed out';
	else if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') detail = 'the connection was reset';
	else if (refused) detail = 'the connection was refused';
	else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') detail = 'the host name could not be resolved';
	else if (code === 'EUNKNOWN') detail = 'the request failed without a response';
	else detail = `the request failed (${code})`;
	return { kind: 'network', code, timedOut, refused, detail };
}

export async function sendOnce(
	ctx: TransportContext,
	method: IHttpRequestMethods,
	url: string,
	body: IDataObject | IDataObject[] | undefined,
	timeoutMs: number,
): Promise<Outcome> {
	const options: IHttpRequestOptions = {
		method,
		url,
		headers: { Accept: 'application/json' },
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
		timeout: timeoutMs,
	};
	if (body !== undefined) {
		options.body = body;
		(options.headers as IDataObject)['Content-Type'] = 'application/json';
	}
	try {
		const response = (await ctx.helpers.httpRequestWithAuthentication.call(
			ctx,
			CREDENTIAL_NAME,
			options,
		)) as { statusCode?: number; status?: number; headers?: IDataObject; body?: unknown };
		const statusCode = Number(response?.statusCode ?? response?.status ?? 0);
		let parsed: unknown = response?.body;
		if (typeof parsed === 'string') {
			const text = parsed.trim();
			if (text === '') parsed = undefined;
			else if (text.startsWith('{') || text.startsWith('[')) {
				try {
					parsed = JSON.parse(text);
				} catch {
					// not JSON after all: keep the text
				}
			}
		}
		if (parsed === null || parsed === '') parsed = undefined;
		return { kind: 'response', statusCode, headers: response?.headers ?? {}, body: parsed };
	} catch (error) {
		return classifyThrown(error);
	}
}
