/**
 * The create of the node never doubles a subscription: when the answer to a webhook Create is lost after the service
 * stored it (time-out, 500, reset), alone or in a batch, when the service processes it only after the node gave
 * up waiting, and when n8n's Retry On Fail runs the node again after that (the re-run adopts what the first run
 * stored, never an identical older one). The operations, fixture and sandbox they run on: faults.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../helpers/n8n';
import { TOKEN, visibleTexts, waitFor } from './common';
import { OPERATIONS, out, ownSandbox, prepare, run, sb, seen, useFaultSandbox } from './faults';

const RETRY_ON_FAIL = { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 };

// The cases that wait for a time-out or a late create run at the same time (it.concurrent), each on a sandbox of its
// own; the others run one after the other on the file's.
useFaultSandbox();

describe('a webhook Create whose answer is lost after the service stored it', () => {
	it.concurrent.each([
		[
			'timed out (answer slower than Options > Timeout)',
			{ delayMs: 1500 },
			{ timeoutSeconds: 0.5 },
		],
		['500 after storing', { status: 500 }, {}],
		['connection reset after storing', { reset: true }, {}],
	])('%s: exactly one subscription, and the node returns it', async (_name, spec, advanced) => {
		const sb = await ownSandbox();
		const f = await prepare('lost-' + String(_name).slice(0, 10).replace(/\W+/g, '-'), sb);
		await sb.fault({
			count: 1,
			phase: 'after',
			...spec,
			match: { method: 'POST', path: '/api/v3/webhooks/' },
		});
		// version 4: a slow read of the list before the create (a loaded machine, a 0.5 s time-out) is n8n's to retry
		const r = await run(
			{ ...OPERATIONS.find((o) => o.name === 'webhook create')!.parameters(f), advanced },
			false,
			undefined,
			sb,
			RETRY_ON_FAIL,
		);
		expect(r.error).toBeUndefined();
		const stored = (await sb.webhooks()).filter((w) => w.url === f.createUrl);
		expect(stored).toHaveLength(1);
		expect(out(r)[0].webhook_key).toBe(stored[0].webhook_key);
		// checked against the list instead of being sent again
		expect((await sb.requests()).filter((q) => q.method === 'POST')).toHaveLength(1);
	});

	it('the same under a batch of creates with concurrency: one subscription per URL', async () => {
		const f = await prepare('batch');
		await sb.fault({
			count: 3,
			phase: 'after',
			status: 502,
			match: { method: 'POST', path: '/api/v3/webhooks/' },
		});
		const urls = Array.from({ length: 6 }, (_, i) => `${f.createUrl}/${i}`);
		const r = await runNode({
			parameters: {
				resource: 'webhook',
				operation: 'create',
				url: '={{ $json.url }}',
				events: ['appointment.updated'],
				otherEvents: '',
				advanced: { concurrency: 3 },
			},
			credentials: { baseUrl: sb.url, accessToken: TOKEN },
			input: urls.map((url) => ({ url })),
		});
		seen.push(...visibleTexts(r));
		expect(r.error).toBeUndefined();
		expect(out(r).map((w) => w.url)).toEqual(urls);
		const stored = await sb.webhooks();
		for (const url of urls) expect(stored.filter((w) => w.url === url)).toHaveLength(1);
	});
});

describe("a webhook Create re-run by n8n's Retry On Fail after its own retries gave up on a lost answer", () => {
	const retryOnFail = { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 };
	async function createWithRetryOnFail(
		url: string,
		extra: { input?: IDataObject[]; advanced?: IDataObject } = {},
		box = sb,
	) {
		const r = await runNode({
			// one attempt of our own: the lost answer fails the node, so n8n runs it again
			parameters: {
				resource: 'webhook',
				operation: 'create',
				url: '={{ $json.url ?? "' + url + '" }}',
				events: ['appointment.updated'],
				otherEvents: '',
				advanced: { maxAttempts: 1, ...extra.advanced },
			},
			credentials: { baseUrl: box.url, accessToken: TOKEN },
			settings: retryOnFail,
			input: extra.input,
		});
		seen.push(...visibleTexts(r));
		return r;
	}

	it.each([
		['500 after storing', { status: 500, body: { detail: 'lost' } }],
		['connection reset after storing', { reset: true }],
	])(
		'%s: the re-run adopts what the first run stored, exactly one subscription',
		async (_name, spec) => {
			const f = await prepare('rerun-' + String(_name).slice(0, 8).replace(/\W+/g, '-'));
			await sb.fault({
				count: 1,
				phase: 'after',
				...spec,
				match: { method: 'POST', path: '/api/v3/webhooks/' },
			});
			const r = await createWithRetryOnFail(f.createUrl);
			expect(r.error).toBeUndefined();
			const stored = (await sb.webhooks()).filter((w) => w.url === f.createUrl);
			expect(stored).toHaveLength(1);
			expect(out(r).map((w) => w.webhook_key)).toEqual([stored[0].webhook_key]);
			expect((await sb.requests()).filter((q) => q.method === 'POST')).toHaveLength(1);
		},
	);

	it.concurrent(
		'timed out, stored by the service only after n8n ran the node again: the re-run does not send it again',
		async () => {
			const sb = await ownSandbox();
			const f = await prepare('rerun-late', sb);
			await sb.fault({
				count: 1,
				phase: 'before',
				delayMs: 1500,
				match: { method: 'POST', path: '/api/v3/webhooks/' },
			});
			const r = await createWithRetryOnFail(f.createUrl, { advanced: { timeoutSeconds: 0.5 } }, sb);
			expect(r.error).toBeUndefined();
			const received = Date.parse((await sb.requests()).find((q) => q.method === 'POST')!.at!);
			const stored = await waitFor('the late create to be processed', async () => {
				const list = (await sb.webhooks()).filter((w) => w.url === f.createUrl);
				return (list.length > 1 || Date.now() > received + 1500 + 700) && list;
			});
			expect(stored.map((w) => w.webhook_key)).toEqual([out(r)[0].webhook_key]);
			expect((await sb.requests()).filter((q) => q.method === 'POST')).toHaveLength(1);
		},
	);

	it('an identical subscription that existed before the first run is never adopted', async () => {
		const f = await prepare('rerun-older');
		const older = (
			await sb.api('POST', 'webhooks/', { url: f.createUrl, events: ['appointment.updated'] })
		).body;
		await sb.fault({
			count: 1,
			phase: 'after',
			status: 502,
			match: { method: 'POST', path: '/api/v3/webhooks/' },
		});
		const r = await createWithRetryOnFail(f.createUrl);
		expect(r.error).toBeUndefined();
		const stored = (await sb.webhooks())
			.filter((w) => w.url === f.createUrl)
			.map((w) => w.webhook_key);
		expect(stored).toHaveLength(2);
		const created = out(r)[0].webhook_key;
		expect(created).not.toBe(older.webhook_key);
		expect(stored).toContain(created);
	});

	it('an item the first run created is not created again when another item makes n8n re-run the node', async () => {
		const f = await prepare('rerun-batch');
		// the first item's create goes through (a fault that only delays by 0 ms), the second one's fails on the first run
		await sb.fault({ count: 1, delayMs: 0, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		await sb.fault({ count: 1, status: 503, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		const urls = [`${f.createUrl}/a`, `${f.createUrl}/b`];
		const r = await createWithRetryOnFail(f.createUrl, { input: urls.map((url) => ({ url })) });
		expect(r.error).toBeUndefined();
		expect((await sb.requests()).filter((q) => q.method === 'POST').map((q) => q.status)).toEqual([
			201, 503, 201,
		]);
		const stored = await sb.webhooks();
		for (const url of urls) expect(stored.filter((w) => w.url === url)).toHaveLength(1);
		expect(out(r).map((w) => w.url)).toEqual(urls);
	});
});

describe('a webhook Create the service processes only after the node gave up waiting', () => {
	it.concurrent(
		'still leaves exactly one subscription once the late create has gone through',
		async () => {
			const sb = await ownSandbox();
			const f = await prepare('late', sb);
			// the service is slow: it stores the subscription 1.5 s after receiving it, the node waits 0.5 s
			await sb.fault({
				count: 1,
				phase: 'before',
				delayMs: 1500,
				match: { method: 'POST', path: '/api/v3/webhooks/' },
			});
			const r = await run(
				{
					...OPERATIONS.find((o) => o.name === 'webhook create')!.parameters(f),
					advanced: { timeoutSeconds: 0.5 },
				},
				false,
				undefined,
				sb,
				RETRY_ON_FAIL,
			);
			expect(r.error).toBeUndefined();
			// the late create lands 1.5 s after the service received it: watch until then (and a little longer)
			const received = Date.parse((await sb.requests()).find((q) => q.method === 'POST')!.at!);
			const stored = await waitFor('the late create to be processed', async () => {
				const list = (await sb.webhooks()).filter((w) => w.url === f.createUrl);
				return (list.length > 1 || Date.now() > received + 1500 + 700) && list;
			});
			expect(stored.map((w) => w.webhook_key)).toEqual([out(r)[0].webhook_key]);
		},
	);
});
