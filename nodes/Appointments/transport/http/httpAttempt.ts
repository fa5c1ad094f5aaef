/** One HTTP attempt through n8n's helper, and what came of it: a response, or a network failure classified. */
import { sleep, type IDataObject, type IHttpRequestMethods } from 'n8n-workflow';

import { CREDENTIAL_NAME, type TransportContext } from './credentialInfo.js';

/** The largest answer read; a larger one is cut off, never buffered whole. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

export type SendResult =
	| { kind: 'response'; statusCode: number; headers: IDataObject; body: unknown }
	| { kind: 'tooLarge'; statusCode: number; limit: number }
	| { kind: 'network'; code: string; timedOut: boolean; refused: boolean; detail: string };

type BodyStream = {
	on: (event: string, listener: (arg: never) => void) => unknown;
	destroy: () => void;
};
type BodyRead = string | 'tooLarge' | 'timedOut' | { failed: unknown };

/**
 * Reads an answer to its end, at most MAX_BODY_BYTES and only until `deadline`. n8n's helper sets no size limit
 * (axios' maxContentLength is Infinity), its time-out stops at the headers and its abort signal is the execution's,
 * so the node bounds the body itself: the clock is looked at every 100 ms, also while nothing arrives.
 */
async function readBody(body: BodyStream, deadline: number): Promise<BodyRead> {
	let [chunks, size, done] = [[] as Buffer[], 0, false];
	return await new Promise<BodyRead>((resolve) => {
		const finish = (result: BodyRead, destroy = false) => {
			if (done) return;
			done = true;
			chunks = [];
			if (destroy) body.destroy();
			resolve(result);
		};
		body.on('data', (chunk: Buffer) => {
			if (done) return;
			if (Date.now() > deadline) return finish('timedOut', true);
			size += chunk.length;
			if (size > MAX_BODY_BYTES) return finish('tooLarge', true);
			chunks.push(chunk);
		});
		body.on('end', () => finish(Buffer.concat(chunks).toString('utf8')));
		body.on('error', (error: unknown) => finish({ failed: error }));
		body.on('close', () =>
			finish({ failed: { code: 'ECONNRESET', message: 'the answer ended early' } }),
		);
		void (async () => {
			while (!done && Date.now() < deadline) await sleep(Math.min(100, deadline - Date.now()));
			finish('timedOut', true);
		})();
	});
}

/** JSON when the text, trimmed, is JSON, else the trimmed text (an HTML page, say); '' and null are no body. */
export function parseBody(raw: unknown): unknown {
	if (typeof raw !== 'string') return raw ?? undefined;
	try {
		// JSON.parse skips JSON's white space itself, so a list page is parsed without a trimmed copy first.
		return (JSON.parse(raw) as unknown) ?? undefined;
	} catch {
		const text = raw.trim(); // also drops a byte-order mark
		return text === raw ? text || undefined : parseBody(text);
	}
}

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

/** Node's codes for a certificate it does not accept (self-signed, expired, another host's): no retry fixes one. */
const CERTIFICATE_CODE = /CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|INVALID_CA/;
/** Nor for an address that does not speak TLS: OpenSSL's reasons, in undici's code or in Node's https' message. */
export const NOT_TLS = /wrong.version.number|packet.length.too.long/i;

const untrustedCode = (code: string) => CERTIFICATE_CODE.test(code) || NOT_TLS.test(code);
export const untrusted = (outcome: SendResult): boolean =>
	outcome.kind === 'network' && untrustedCode(outcome.code);

const [RESET, UNRESOLVED] = ['the connection was reset', 'the host name could not be resolved'];
const DETAIL: Record<string, string> = {
	ECONNRESET: RESET,
	EPIPE: RESET,
	UND_ERR_SOCKET: RESET,
	ENOTFOUND: UNRESOLVED,
	EAI_AGAIN: UNRESOLVED,
	ECONNREFUSED: 'the connection was refused',
	EUNKNOWN: 'the request failed without a response',
};

/** A thrown error as a network failure: its code, from its own and nested errors' codes and messages (20 at most). */
function classifyThrown(error: unknown): SendResult & { kind: 'network' } {
	// A Set iterates what is added while it is walked, each error once: breadth first, cycles cut.
	const nested = new Set<unknown>([error]);
	const messages: string[] = [];
	let [found, walked] = ['', 0];
	for (const e of nested as Set<Record<string, unknown>>) {
		if (!e || typeof e !== 'object' || walked++ === 20) break;
		const own = typeof e.code === 'string' ? e.code : '';
		if (!found && (NETWORK_CODES.includes(own) || untrustedCode(own))) found = own;
		if (typeof e.message === 'string') messages.push(e.message);
		for (const key of ['cause', 'errorResponse', 'reason', 'error']) {
			if (e[key] && typeof e[key] === 'object') nested.add(e[key]);
		}
	}
	const text = messages.join(' | ');
	const notTls = NOT_TLS.exec(text)?.[0].toUpperCase().replace(/\W/g, '_');
	found ||= NETWORK_CODES.find((c) => text.includes(c)) ?? (notTls ? `ERR_SSL_${notTls}` : '');
	const timedOut =
		/timeout|timed out/i.test(text) ||
		['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNABORTED'].includes(found);
	const code = found || (timedOut ? 'ETIMEDOUT' : 'EUNKNOWN');
	let detail = DETAIL[code] ?? `the request failed (${code})`;
	if (timedOut) detail = 'the request timed out';
	else if (NOT_TLS.test(code)) detail = `its address does not speak https (${code})`;
	else if (CERTIFICATE_CODE.test(code)) detail = `its certificate was not accepted (${code})`;
	return { kind: 'network', code, timedOut, refused: code === 'ECONNREFUSED', detail };
}

type Response = { statusCode?: number; status?: number; headers?: IDataObject; body?: unknown };

async function outcomeOf(response: Response, deadline: number): Promise<SendResult> {
	const statusCode = Number(response?.statusCode ?? response?.status ?? 0);
	let answer = response?.body;
	const stream = answer as BodyStream | null;
	if (typeof stream?.on === 'function' && typeof stream.destroy === 'function') {
		const read = await readBody(stream, deadline);
		if (read === 'tooLarge') return { kind: 'tooLarge', statusCode, limit: MAX_BODY_BYTES };
		if (read === 'timedOut') {
			const detail = 'the request timed out (the answer was still arriving)';
			return { kind: 'network', code: 'ETIMEDOUT', timedOut: true, refused: false, detail };
		}
		if (typeof read === 'object') return classifyThrown(read.failed);
		answer = read;
	}
	return {
		kind: 'response',
		statusCode,
		headers: response?.headers ?? {},
		body: parseBody(answer),
	};
}

/** One attempt: no redirect followed, every status returned (not thrown), the answer read as a bounded stream. */
export async function sendOnce(
	ctx: TransportContext,
	method: IHttpRequestMethods,
	url: string,
	body: IDataObject | IDataObject[] | undefined,
	timeoutMs: number,
): Promise<SendResult> {
	const deadline = Date.now() + timeoutMs;
	const json = body === undefined ? {} : { 'Content-Type': 'application/json' };
	try {
		const response = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_NAME, {
			method,
			url,
			headers: { Accept: 'application/json', ...json },
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			timeout: timeoutMs,
			...(body === undefined ? {} : { body }),
		})) as Response;
		return await outcomeOf(response, deadline);
	} catch (error) {
		return classifyThrown(error);
	}
}
