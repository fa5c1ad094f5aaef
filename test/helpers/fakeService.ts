/**
 * A small programmable HTTP service on loopback for the misbehaviour the sandbox cannot show (an HTML login page
 * with 200, a body trickled byte by byte, a gigantic answer, integer webhook keys, a redirect, a connection reset
 * (`raw.socket.destroy()`), answers held back...). Each test sets `handle`; every request is recorded (method, path,
 * query, body, headers) before the handler runs. The one fake service of the tests: extend it rather than start
 * another server (pollingService.ts builds a stateful appointment service on it).
 */
import {
	createServer,
	type IncomingHttpHeaders,
	type IncomingMessage,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
	method: string;
	path: string;
	query: string;
	body: string;
	authorization?: string;
	headers: IncomingHttpHeaders;
}

export type FakeHandler = (
	req: FakeRequest,
	res: ServerResponse,
	raw: IncomingMessage,
) => void | Promise<void>;

export interface FakeService {
	url: string;
	requests: FakeRequest[];
	handle: FakeHandler;
	close(): Promise<void>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
	const text = body === undefined ? '' : JSON.stringify(body);
	res.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

export async function startFakeService(): Promise<FakeService> {
	const service: FakeService = {
		url: '',
		requests: [],
		handle: (_req, res) => sendJson(res, 404, { detail: 'Not found.' }),
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
	const server = createServer((raw, res) => {
		const chunks: Buffer[] = [];
		raw.on('data', (c: Buffer) => chunks.push(c));
		raw.on('end', () => {
			const url = new URL(raw.url ?? '/', 'http://fake');
			const req: FakeRequest = {
				method: raw.method ?? 'GET',
				path: url.pathname,
				query: url.search,
				body: Buffer.concat(chunks).toString('utf8'),
				authorization: raw.headers.authorization,
				headers: raw.headers,
			};
			service.requests.push(req);
			void Promise.resolve(service.handle(req, res, raw)).catch((error: unknown) => {
				if (!res.headersSent) sendJson(res, 500, { detail: String(error) });
				else res.destroy();
			});
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return service;
}
