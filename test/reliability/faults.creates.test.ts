/**
 * The create of the node never doubles a subscription: when the answer to a webhook Create is lost after the service
 * stored it (time-out, 500, reset), alone or in a batch, or when the service processes it only after the node gave
 * up waiting. The operations, fixture and sandbox they run on: faults.ts.
 */
import { runNode } from '../helpers/n8n';
import { TOKEN, visibleTexts, waitFor } from './common';
import { OPERATIONS, out, prepare, run, sb, seen, useFaultSandbox } from './faults';

useFaultSandbox();

describe('a webhook Create whose answer is lost after the service stored it', () => {
	it.each([
		['timed out (answer slower than Options > Timeout)', { delayMs: 1500 }, { timeoutSeconds: 0.5 }],
		['500 after storing', { status: 500 }, {}],
		['connection reset after storing', { reset: true }, {}],
	])('%s: exactly one subscription, and the node returns it', async (_name, spec, advanced) => {
		const f = await prepare('lost-' + String(_name).slice(0, 10).replace(/\W+/g, '-'));
		await sb.fault({ count: 1, phase: 'after', ...spec, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		const r = await run({ ...OPERATIONS.find((o) => o.name === 'webhook create')!.parameters(f), advanced });
		expect(r.error).toBeUndefined();
		const stored = (await sb.webhooks()).filter((w) => w.url === f.createUrl);
		expect(stored).toHaveLength(1);
		expect(out(r)[0].webhook_key).toBe(stored[0].webhook_key);
		// checked against the list instead of being sent again
		expect((await sb.requests()).filter((q) => q.method === 'POST')).toHaveLength(1);
	});

	it('the same under a batch of creates with concurrency: one subscription per URL', async () => {
		const f = await prepare('batch');
		await sb.fault({ count: 3, phase: 'after', status: 502, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		const urls = Array.from({ length: 6 }, (_, i) => `${f.createUrl}/${i}`);
		const r = await runNode({
			parameters: { resource: 'webhook', operation: 'create', url: '={{ $json.url }}', events: ['appointment.updated'], otherEvents: '', advanced: { concurrency: 3 } },
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

describe('a webhook Create the service processes only after the node gave up waiting', () => {
	it('still leaves exactly one subscription once the late create has gone through', async () => {
		const f = await prepare('late');
		// the service is slow: it stores the subscription 1.5 s after receiving it, the node waits 0.5 s
		await sb.fault({ count: 1, phase: 'before', delayMs: 1500, match: { method: 'POST', path: '/api/v3/webhooks/' } });
		const r = await run({ ...OPERATIONS.find((o) => o.name === 'webhook create')!.parameters(f), advanced: { timeoutSeconds: 0.5 } });
		expect(r.error).toBeUndefined();
		// the late create lands 1.5 s after the service received it: watch until then (and a little longer)
		const received = Date.parse((await sb.requests()).find((q) => q.method === 'POST')!.at!);
		const stored = await waitFor('the late create to be processed', async () => {
			const list = (await sb.webhooks()).filter((w) => w.url === f.createUrl);
			return (list.length > 1 || Date.now() > received + 1500 + 700) && list;
		});
		expect(stored.map((w) => w.webhook_key)).toEqual([out(r)[0].webhook_key]);
	});
});
