/** A tiny JSON client over undici that trusts our self-signed certificate (n8n serves https on localhost). */
import { Agent, request } from 'undici';

export interface HttpResult<T = any> {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: T;
	text: string;
}

/** Errors of a connection that closed before any answer came (the request may not have reached the server). */
const CLOSED_BEFORE_ANSWER = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);
/** Methods RFC 9110 lets a client send again after such a close without asking (safe, hence idempotent). */
const RETRIED = new Set(['GET', 'HEAD']);

/**
 * A server closes an idle keep-alive connection when its own timer says so (Node's default: 5 s after the last
 * answer). When its event loop stalls past that (n8n just after it reports ready, on a loaded machine), the timer
 * fires before the server reads the request a client has sent on that connection meanwhile, and the request dies
 * with "other side closed" or ECONNRESET. So GET and HEAD are sent once more, on a new connection, after such a close,
 * and every other request goes on a connection of its own, which no server timer can be closing.
 */
export class JsonClient {
	private readonly agent: Agent;
	private readonly freshAgent: Agent;
	constructor(
		readonly baseUrl: string,
		ca?: string,
		private readonly defaultHeaders: Record<string, string> = {},
	) {
		// An idle connection is dropped after 1 s, well before n8n's server closes it (Node's 5 s).
		this.agent = new Agent({
			connect: ca ? { ca } : {},
			keepAliveTimeout: 1000,
			keepAliveMaxTimeout: 1000,
		});
		this.freshAgent = new Agent({ connect: ca ? { ca } : {} });
	}

	withHeaders(headers: Record<string, string>): JsonClient {
		const c = Object.create(this) as JsonClient;
		(c as any).defaultHeaders = { ...this.defaultHeaders, ...headers };
		return c;
	}

	async call<T = any>(
		method: string,
		path: string,
		opts: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
	): Promise<HttpResult<T>> {
		const headers: Record<string, string> = {
			accept: 'application/json',
			...this.defaultHeaders,
			...opts.headers,
		};
		let body: string | undefined;
		if (opts.body !== undefined) {
			headers['content-type'] = 'application/json';
			body = JSON.stringify(opts.body);
		}
		const retried = RETRIED.has(method.toUpperCase());
		const send = (fresh: boolean) =>
			request(this.baseUrl + path, {
				method: method as any,
				headers,
				body,
				dispatcher: fresh ? this.freshAgent : this.agent,
				reset: fresh, // connection: close, so that the fresh agent never holds an idle connection
				headersTimeout: opts.timeoutMs ?? 30000,
				bodyTimeout: opts.timeoutMs ?? 30000,
			});
		const res = await send(!retried).catch((error: { code?: string }) => {
			if (retried && CLOSED_BEFORE_ANSWER.has(error.code ?? '')) return send(true);
			throw error;
		});
		const text = await res.body.text();
		let parsed: any = text;
		try {
			parsed = text ? JSON.parse(text) : undefined;
		} catch {
			/* not JSON: keep the text */
		}
		return { status: res.statusCode, headers: res.headers as any, body: parsed, text };
	}

	/** Like call(), but throws unless the status is 2xx. The error carries method, path, status and body. */
	async ok<T = any>(
		method: string,
		path: string,
		opts: Parameters<JsonClient['call']>[2] = {},
	): Promise<T> {
		const r = await this.call<T>(method, path, opts);
		if (r.status < 200 || r.status >= 300) {
			throw new Error(`${method} ${path} answered ${r.status}: ${r.text.slice(0, 500)}`);
		}
		return r.body;
	}

	async close(): Promise<void> {
		await Promise.all([this.agent.close(), this.freshAgent.close()]);
	}
}
