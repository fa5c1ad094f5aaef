/** Shared helpers for the sandbox tests: an HTTP client over fetch, an https receiver with a self-signed CA, polling. */
import https from 'node:https';
import type { AddressInfo } from 'node:net';

import type { SandboxOptions } from '../../sandbox';
import { poll } from '../helpers/poll';
import { testCert } from '../helpers/testCert';
import {
	sandboxFetch,
	startTestSandbox,
	type Sandbox,
	type SandboxResponse,
} from '../helpers/sandbox';

export const TOKEN = 'sbx-test-token-5d1c';
export const LIMITED = 'sbx-test-limited-8e2a';
export const ADMIN = 'sbx-test-admin-3f9b';

export type { Sandbox };
export type Res<T = any> = SandboxResponse<T>;

export function start(opts: SandboxOptions = {}): Promise<Sandbox> {
	return startTestSandbox(
		{ token: TOKEN, limited: LIMITED, admin: ADMIN },
		{ seed: 150, seedValue: 3, ...opts },
	);
}

export function client(base: () => string, token: string | undefined) {
	const call = <T = any>(
		method: string,
		path: string,
		body?: unknown,
		headers: Record<string, string> = {},
	): Promise<Res<T>> => sandboxFetch<T>(`${base()}${path}`, method, token, body, headers);
	return Object.assign(call, {
		ok: async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
			const r = await call<T>(method, path, body);
			if (r.status >= 300) throw new Error(`${method} ${path} -> ${r.status} ${r.text}`);
			return r.body;
		},
	});
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function pollUntil<T>(
	what: string,
	check: () => Promise<T | undefined>,
	timeoutMs = 10000,
	everyMs = 20,
): Promise<T> {
	return await poll<T>(what, check, (v) => v !== undefined, {
		timeoutMs,
		intervalMs: everyMs,
		describe: (w, _ms, { lastError }) =>
			`timed out waiting for ${w}${lastError ? `: ${String(lastError)}` : ''}`,
	});
}

export interface Pems {
	cert: string;
	key: string;
}
let cachedPems: Pems | undefined;
/** A self-signed certificate for localhost and 127.0.0.1 (it is its own CA). */
export function selfSigned(): Pems {
	cachedPems ??= testCert('sandbox-receiver', { days: 2 });
	return cachedPems;
}

export interface Received {
	path: string;
	body: any;
	raw: string;
	headers: Record<string, string | string[] | undefined>;
	at: number;
}

/** An https receiver. `answer` decides the status of each request (default 200); it may return a promise. */
export async function receiver(
	answer: (r: Received, n: number) => number | Promise<number> = () => 200,
	pems: Pems = selfSigned(),
) {
	const got: Received[] = [];
	const server = https.createServer({ cert: pems.cert, key: pems.key }, (req, res) => {
		let raw = '';
		req.setEncoding('utf8');
		req.on('data', (c) => (raw += c));
		req.on('end', async () => {
			let body: any;
			try {
				body = JSON.parse(raw);
			} catch {
				body = undefined;
			}
			const r: Received = { path: req.url ?? '', body, raw, headers: req.headers, at: Date.now() };
			got.push(r);
			let status = 200;
			try {
				status = await answer(r, got.length);
			} catch {
				status = 500;
			}
			if (!res.destroyed) {
				res.statusCode = status;
				res.end('{}');
			}
		});
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
	const port = (server.address() as AddressInfo).port;
	return {
		got,
		port,
		url: (path = '/hook') => `https://localhost:${port}${path}`,
		close: () =>
			new Promise<void>((r) => {
				server.closeAllConnections();
				server.close(() => r());
			}),
	};
}
