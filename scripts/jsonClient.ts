/** A tiny JSON client over undici that trusts our self-signed certificate (n8n serves https on localhost). */
import { Agent, request } from 'undici';

export interface HttpResult<T = any> {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: T;
	text: string;
}

export class JsonClient {
	private readonly agent: Agent;
	constructor(
		readonly baseUrl: string,
		ca?: string,
		private readonly defaultHeaders: Record<string, string> = {},
	) {
		// An idle connection is dropped after 1 s, well before n8n's server closes it (Node's 5 s): on a loaded machine
		// a client that kept it for the server's hinted 4 s sent requests into a closing socket ("other side closed").
		this.agent = new Agent({
			connect: ca ? { ca } : {},
			keepAliveTimeout: 1000,
			keepAliveMaxTimeout: 1000,
		});
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
		const res = await request(this.baseUrl + path, {
			method: method as any,
			headers,
			body,
			dispatcher: this.agent,
			headersTimeout: opts.timeoutMs ?? 30000,
			bodyTimeout: opts.timeoutMs ?? 30000,
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
		await this.agent.close();
	}
}
