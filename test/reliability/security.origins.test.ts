/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any -- test code, never shipped: it starts servers, reads the environment and handles arbitrary JSON from the sandbox and run data */
/**
 * Nothing goes to another origin or to a webhook URL other than https:
 * - a `next` link to another origin (another port, scheme, or protocol-relative) is refused at node level, and
 *   that origin receives nothing (a second server); the one home of this guarantee;
 * - a redirect to another origin is not followed;
 * - non-https webhook URLs are refused by the node (no request) and by the sandbox (400 naming `url`).
 */
import { randomUUID } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { sendJson, startFakeService, type FakeService } from '../helpers/fakeService';
import { runNode } from '../helpers/n8n';
import { TestSandbox, TOKEN, visibleTexts } from './common';
import { nodeRunner, startSecuritySandbox } from './security';

let sb: TestSandbox;
beforeAll(async () => {
	sb = await startSecuritySandbox();
});

afterAll(async () => {
	await sb?.close();
});
const { run } = nodeRunner(() => sb);

describe('pagination links to another origin', () => {
	let other: FakeService;
	let otherOrigin: string;
	const hits = () =>
		other.requests.map((q) => `${q.method} ${q.path}${q.query} ${q.authorization ?? ''}`);
	beforeAll(async () => {
		other = await startFakeService();
		other.handle = (_req, res) => sendJson(res, 200, { count: 0, next: null, results: [] });
		otherOrigin = other.url;
	});
	afterAll(async () => {
		await other.close();
	});
	beforeEach(async () => {
		other.requests.length = 0;
		await sb.reset(130, 5); // more than one page (50)
	});

	it.each([['page'], ['cursor']])(
		'%s pagination: Get Many refuses the link with an error; the other server gets no request',
		async (pagination) => {
			await sb.config({ pagination, nextLinks: 'absolute', nextOrigin: otherOrigin });
			await sb.clearRequests();
			const r = await run({
				resource: 'appointment',
				operation: 'getAll',
				returnAll: true,
				dateRange: 'all',
				filters: {},
				output: 'simple',
			});
			expect(r.error?.message).toMatch(
				new RegExp(`another origin.*${otherOrigin.replace(/[.:/]/g, '\\$&')}`),
			);
			expect(hits()).toEqual([]);
			expect(await sb.requests()).toHaveLength(1); // the first page only
		},
	);

	it('the same with a limit that needs a second page, and for the webhook list', async () => {
		await sb.config({
			pagination: 'page',
			nextLinks: 'absolute',
			nextOrigin: otherOrigin,
			webhookList: 'paginated',
		});
		let r = await run({
			resource: 'appointment',
			operation: 'getAll',
			returnAll: false,
			limit: 60,
			dateRange: 'all',
			filters: {},
			output: 'simple',
		});
		expect(r.error?.message).toMatch(/another origin/);
		for (let i = 0; i < 60; i++)
			await sb.api('POST', 'webhooks/', {
				url: `https://hooks.test/many/${i}`,
				events: ['appointment.created'],
			});
		r = await run({ resource: 'webhook', operation: 'getAll', returnAll: true });
		const listed = (r.items[0] ?? []).length;
		// either the list fits one page (nothing to follow) or the link is refused
		if (!r.error) expect(listed).toBe(60);
		else expect(r.error.message).toMatch(/another origin/);
		expect(hits()).toEqual([]);
	});

	it('another port, another scheme on the same port, a protocol-relative link: refused, naming both origins, nothing sent', async () => {
		const api = await startFakeService();
		try {
			const port = (url: string) => new URL(url).port;
			for (const [next, origin] of [
				[`${otherOrigin}/api/v3/appointments/?page=2`, otherOrigin],
				[`//127.0.0.1:${port(otherOrigin)}/api/v3/appointments/?page=2`, otherOrigin],
				[
					`https://127.0.0.1:${port(api.url)}/api/v3/appointments/?page=2`,
					`https://127.0.0.1:${port(api.url)}`,
				],
			]) {
				api.requests.length = 0;
				api.handle = (_req, res) =>
					sendJson(res, 200, { count: 2, next, results: [{ appointment_key: 'a' }] });
				const r = await runNode({
					parameters: {
						resource: 'appointment',
						operation: 'getAll',
						returnAll: true,
						output: 'raw',
					},
					credentials: { baseUrl: api.url, accessToken: TOKEN },
				});
				expect(r.error?.message).toBe(
					`Refusing to follow a pagination link to another origin (${origin}); only ${api.url} is allowed`,
				);
				expect(api.requests).toHaveLength(1);
			}
			expect(hits()).toEqual([]);
		} finally {
			await api.close();
		}
	});
});

describe('redirects to another origin', () => {
	it.each([301, 302, 307, 308])(
		'a %i from the service is not followed: the other origin never sees the token',
		async (status) => {
			const other = await startFakeService();
			other.handle = (_req, res) => sendJson(res, 200, { results: [], next: null });
			const api = await startFakeService();
			api.handle = (req, res) => {
				res
					.writeHead(status, {
						location: `${other.url}${req.path}${req.query}`,
						'content-type': 'application/json',
					})
					.end('{}');
			};
			const apiUrl = api.url;
			try {
				for (const parameters of [
					{
						resource: 'appointment',
						operation: 'getAll',
						returnAll: true,
						dateRange: 'all',
						filters: {},
						output: 'simple',
					},
					{
						resource: 'appointment',
						operation: 'updateStatus',
						appointmentKey: '={{ $json.key }}',
						status: 'ATTENDED',
					},
					{
						resource: 'webhook',
						operation: 'create',
						url: 'https://hooks.test/r',
						events: ['appointment.created'],
						otherEvents: '',
					},
				]) {
					const result = await runNode({
						parameters: { ...parameters, advanced: { maxAttempts: 1 } } as IDataObject,
						credentials: { baseUrl: apiUrl, accessToken: TOKEN },
						input: [{ key: randomUUID() }],
					});
					expect(visibleTexts(result).filter((t) => t.includes(TOKEN))).toEqual([]);
					// a redirect is not a result: the node says what the service answered
					expect(result.error?.message).toMatch(new RegExp(`${status}`));
				}
				expect(other.requests).toEqual([]);
			} finally {
				await api.close();
				await other.close();
			}
		},
	);
});

describe('webhook URLs other than https', () => {
	const BAD_URLS = [
		'http://hooks.test/h',
		'HTTP://hooks.test/h',
		'ftp://hooks.test/h',
		'ws://hooks.test/h',
		'javascript:alert(1)',
		'hooks.test/h',
		'//hooks.test/h',
		'',
		'   ',
		'https//hooks.test',
	];

	it.each(BAD_URLS)(
		'the node refuses %j on create and update before any request, naming the field',
		async (url) => {
			await sb.reset(40, 5);
			const hook = (
				await sb.api('POST', 'webhooks/', {
					url: 'https://hooks.test/keep',
					events: ['appointment.created'],
				})
			).body;
			await sb.clearRequests();
			for (const parameters of [
				// the URL comes from the item, as from an earlier node (a literal empty field would not even run)
				{
					resource: 'webhook',
					operation: 'create',
					url: '={{ $json.url }}',
					events: ['appointment.created'],
					otherEvents: '',
				},
				{
					resource: 'webhook',
					operation: 'update',
					webhookKey: hook.webhook_key,
					url: '={{ $json.url }}',
					events: ['appointment.created'],
					otherEvents: '',
				},
			]) {
				const r = await run(parameters, { input: [{ url }] });
				expect(r.error?.message).toMatch(/^The field "URL" \(item 0\) must /);
			}
			expect(await sb.requests()).toEqual([]);
			expect((await sb.webhooks()).map((w) => w.url)).toEqual(['https://hooks.test/keep']);
		},
	);

	it.each(BAD_URLS)('the sandbox answers 400 naming url to %j on POST and PUT', async (url) => {
		await sb.reset(40, 5);
		const hook = (
			await sb.api('POST', 'webhooks/', {
				url: 'https://hooks.test/keep',
				events: ['appointment.created'],
			})
		).body;
		for (const [method, path] of [
			['POST', 'webhooks/'],
			['PUT', `webhooks/${hook.webhook_key}/`],
		]) {
			const res = await sb.api(method, path, { url, events: ['appointment.created'] });
			expect({ method, status: res.status }).toEqual({ method, status: 400 });
			expect(Object.keys(res.body)).toContain('url');
		}
		expect((await sb.webhooks()).map((w) => w.url)).toEqual(['https://hooks.test/keep']);
	});
});
