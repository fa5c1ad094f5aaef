/**
 * Proves the n8n-core harness: a workflow runs through WorkflowExecute, the credential's generic auth puts the
 * bearer header on the wire, errors surface as the node's execution error, and LoggerProxy output is captured.
 * Uses the fake service (test/helpers/fakeService.ts), independent of the sandbox.
 */
import http, { type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

import { startFakeService, type FakeRequest, type FakeService } from '../helpers/fakeService';
import { runNode } from '../helpers/n8n';
import { testCert } from '../helpers/testCert';
import { TransportTestNode } from './transportTestNode';

interface Answer {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
	/** Reset the connection instead of answering. */
	destroy?: boolean;
	delayMs?: number;
}

let service: FakeService;
let url: string;
let received: FakeRequest[];
let responder: (req: FakeRequest) => Answer = () => ({ status: 200, body: [] });

function send(res: ServerResponse, answer: Answer): void {
	res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
	res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
}

beforeAll(async () => {
	service = await startFakeService();
	service.handle = (req, res, raw) => {
		const answer = responder(req);
		if (answer.destroy) raw.socket.destroy();
		else if (!answer.delayMs) send(res, answer);
		else {
			const timer = setTimeout(() => !res.destroyed && send(res, answer), answer.delayMs);
			res.on('close', () => clearTimeout(timer));
		}
	};
	url = service.url;
	received = service.requests;
});

afterAll(async () => {
	await service.close();
});

beforeEach(() => {
	received.length = 0;
});

const TOKEN = 'harness-secret-token-123';

it('runs a node through WorkflowExecute with the bearer header and a normalised base URL', async () => {
	responder = () => ({
		status: 200,
		body: [{ webhook_key: 'w1', url: 'https://x.test/h', events: ['a'] }],
	});
	const result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: { call: 'listWebhooks' },
		credentials: { baseUrl: `${url}/api/v3/`, accessToken: TOKEN },
		input: [{ a: 1 }],
	});
	expect(result.error).toBeUndefined();
	expect(result.items[0].map((i) => i.json)).toEqual([
		{ webhook_key: 'w1', url: 'https://x.test/h', events: ['a'] },
	]);
	expect(received).toHaveLength(1);
	expect(received[0].path).toBe('/api/v3/webhooks/');
	expect(received[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
});

it('reports a 401 as the node error with the human message and no token anywhere', async () => {
	responder = () => ({ status: 401, body: { detail: 'Invalid token.' } });
	const result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: { call: 'apiRequest', path: 'appointments/' },
		credentials: { baseUrl: url, accessToken: TOKEN },
	});
	expect(result.error?.message).toBe('Authorization failed - check the access token');
	expect((result.error as unknown as { description: string }).description).toContain(
		'Invalid token.',
	);
	expect(received).toHaveLength(1); // 401 is not retried
	const everything = JSON.stringify({
		run: result.run,
		logs: result.logs,
		msg: result.error?.message,
	});
	expect(everything).not.toContain(TOKEN);
});

it('retries a 503 and honours Retry-After (seconds) inside the node', async () => {
	let calls = 0;
	responder = () =>
		++calls === 1
			? { status: 503, body: { detail: 'busy' }, headers: { 'retry-after': '1' } }
			: { status: 200, body: { results: [] } };
	const started = Date.now();
	const result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: { call: 'apiRequest', path: 'appointments/' },
		credentials: { baseUrl: url, accessToken: TOKEN },
	});
	expect(result.error).toBeUndefined();
	expect(result.items[0][0].json).toMatchObject({ statusCode: 200, attempts: 2 });
	expect(Date.now() - started).toBeGreaterThanOrEqual(950);
	expect(received).toHaveLength(2);
	// the transport's retry line reached n8n's LoggerProxy and was captured
	expect(
		result.logs.some((l) => l.includes('attempt 1 failed (status 503); retrying in 1000 ms')),
	).toBe(true);
});

it('continue-on-fail turns the failure into an item', async () => {
	responder = () => ({ status: 404, body: { detail: 'Not found.' } });
	const result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: { call: 'getAppointment', key: 'abc' },
		credentials: { baseUrl: url, accessToken: TOKEN },
		continueOnFail: true,
		input: [{}, {}],
	});
	expect(result.error).toBeUndefined();
	expect(result.items[0].map((i) => i.json.error)).toEqual([
		'Appointment abc not found',
		'Appointment abc not found',
	]);
});

it('classifies resets and time-outs: retried for GET, and the final error says which', async () => {
	let calls = 0;
	responder = () => (++calls === 1 ? { status: 200, destroy: true } : { status: 200, body: [] });
	let result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: { call: 'apiRequest', path: 'webhooks/', policy: '{"baseDelayMs":10}' },
		credentials: { baseUrl: url, accessToken: TOKEN },
	});
	expect(result.error).toBeUndefined();
	expect(result.items[0][0].json).toMatchObject({ statusCode: 200, attempts: 2 });

	responder = () => ({ status: 200, destroy: true });
	result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: {
			call: 'apiRequest',
			path: 'webhooks/',
			policy: '{"baseDelayMs":10,"maxAttempts":3}',
		},
		credentials: { baseUrl: url, accessToken: TOKEN },
	});
	expect(result.error?.message).toMatch(
		/^Could not reach the service: the connection was reset after 3 attempts/,
	);

	received.length = 0;
	responder = () => ({ status: 200, body: [], delayMs: 2000 });
	result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: {
			call: 'apiRequest',
			path: 'webhooks/',
			policy: '{"baseDelayMs":10,"maxAttempts":2,"timeoutMs":200}',
		},
		credentials: { baseUrl: url, accessToken: TOKEN },
	});
	expect(result.error?.message).toMatch(
		/^Could not reach the service: the request timed out after 2 attempts/,
	);
	expect(received).toHaveLength(2);
	expect(
		JSON.stringify(result.run) + result.logs.join('\n') + String(result.error?.stack),
	).not.toContain(TOKEN);
});

// A plain-http server answers the TLS hello with "HTTP/1.1 400": OpenSSL reads no TLS record in it.
it.each([
	{
		what: 'a certificate n8n does not trust',
		server: () =>
			https.createServer(testCert('credential-self-signed', { days: 30 }), (_, res) =>
				res.end('[]'),
			),
		message: 'its certificate was not accepted (DEPTH_ZERO_SELF_SIGNED_CERT)',
		fix: 'serves https with a certificate n8n does not trust: use the address Settings › API access shows, or make n8n trust that certificate with NODE_EXTRA_CA_CERTS.',
		code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
	},
	{
		what: 'an https Base URL at an address that answers in plain http',
		server: () => http.createServer((_, res) => res.end('[]')),
		message: 'its address does not speak https (ERR_SSL_WRONG_VERSION_NUMBER)',
		fix: 'starts with https://, but that address does not speak https (it answers in plain http, say): use the address Settings › API access shows.',
		code: 'ERR_SSL_WRONG_VERSION_NUMBER',
	},
])(
	'$what is not retried, and the error says what to do about it',
	async ({ server: make, message, fix, code }) => {
		const server = make();
		let connections = 0;
		server.on('connection', () => connections++);
		await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
		try {
			const { port } = server.address() as AddressInfo;
			for (const method of ['GET', 'POST']) {
				connections = 0;
				const result = await runNode({
					nodeType: new TransportTestNode(),
					parameters: {
						call: 'apiRequest',
						method,
						path: 'webhooks/',
						policy: '{"baseDelayMs":10,"maxAttempts":3}',
					},
					credentials: { baseUrl: `https://127.0.0.1:${port}`, accessToken: TOKEN },
				});
				expect(result.error?.message).toBe(`Could not reach the service: ${message}`);
				expect((result.error as unknown as { description: string }).description).toBe(
					`The Base URL of the Appointments API credential ${fix} ${method} /api/v3/webhooks/ - ${code}`,
				);
				expect(connections).toBe(1);
				expect(
					JSON.stringify(result.run) + result.logs.join('\n') + String(result.error?.stack),
				).not.toContain(TOKEN);
			}
		} finally {
			server.close();
		}
	},
);

it('a POST is not repeated after a reset (it may have been processed)', async () => {
	received.length = 0;
	responder = () => ({ status: 200, destroy: true });
	const result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: {
			call: 'apiRequest',
			method: 'POST',
			path: 'webhooks/',
			body: '{"url":"https://a.test/","events":["x"]}',
		},
		credentials: { baseUrl: url, accessToken: TOKEN },
	});
	expect(result.error?.message).toBe('Could not reach the service: the connection was reset');
	expect(received).toHaveLength(1);
	expect(received[0].headers['content-type']).toBe('application/json');
});

it('a delete answered 404 after an ambiguous failure counts as done, after a 429 it does not', async () => {
	let calls = 0;
	responder = () =>
		++calls === 1 ? { status: 502, body: {} } : { status: 404, body: { detail: 'Not found.' } };
	let result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: { call: 'deleteWebhook', key: 'w9', policy: '{"baseDelayMs":10}' },
		credentials: { baseUrl: url, accessToken: TOKEN },
	});
	expect(result.items[0]?.[0]?.json).toEqual({
		deleted: true,
		webhook_key: 'w9',
		alreadyGone: true,
	});
	calls = 0;
	responder = () =>
		++calls === 1
			? { status: 429, body: {}, headers: { 'retry-after': '0' } }
			: { status: 404, body: { detail: 'Not found.' } };
	result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: { call: 'deleteWebhook', key: 'w9', policy: '{"baseDelayMs":10}' },
		credentials: { baseUrl: url, accessToken: TOKEN },
	});
	expect(result.error?.message).toBe('Webhook w9 not found');
});

it('a create that timed out and never shows up in the list is not sent again: a clear error once the wait budget is spent', async () => {
	received.length = 0;
	responder = (r) =>
		r.method === 'POST'
			? { status: 201, body: {}, delayMs: 3000 } // the service never finishes in time and stores nothing
			: { status: 200, body: { count: 0, next: null, results: [] } };
	const result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: {
			call: 'createWebhook',
			body: JSON.stringify({ url: 'https://hooks.test/slow', events: ['appointment.created'] }),
			policy: '{"baseDelayMs":50,"timeoutMs":300,"maxWaitMs":700}',
		},
		credentials: { baseUrl: url, accessToken: TOKEN },
	});
	expect(result.error?.message).toMatch(
		/^Could not reach the service: the request timed out after 1 attempt .*not sent again/,
	);
	expect(received.filter((r) => r.method === 'POST')).toHaveLength(1);
	expect(received.filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(2);
});
