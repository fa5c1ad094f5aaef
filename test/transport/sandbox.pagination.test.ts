/**
 * The transport inside n8n-core's WorkflowExecute against the sandbox over real HTTP on loopback: every
 * pagination shape. The origin check on next links: test/reliability/security.origins.test.ts; a page that fails
 * once: test/reliability/faults.retried.test.ts.
 */
import { admin, config, records, requests, run, useTransportSandbox } from './sandboxTransport';

useTransportSandbox();

describe('pagination', () => {
	async function all(extra: Record<string, unknown> = {}) {
		const r = await run({ call: 'paginate', path: 'appointments/', ...extra });
		expect(r.error).toBeUndefined();
		return records(r);
	}
	it('reads each page once with pages fetched ahead, whatever order and encoding the service writes link queries in', async () => {
		// a filtered list: our query's order (status, end_date, page_size) is not the sorted one
		const qs = JSON.stringify({
			status: 'CONFIRMED',
			end_date: '2099-01-01T00:00:00',
			page_size: 4,
		});
		const reference = (await all({ qs })).map((a) => a.appointment_key);
		expect(reference.length).toBeGreaterThan(12);
		for (const linkQueryOrder of ['request', 'sorted']) {
			await config({ pagination: 'page', linkQueryOrder });
			await admin('DELETE', '/__sandbox/requests/');
			const keys = (await all({ qs, pageConcurrency: 4 })).map((a) => a.appointment_key);
			expect(keys).toEqual(reference);
			const pages = (await requests()).map((q) => String(q.query?.page ?? '1'));
			const expected = Array.from({ length: Math.ceil(reference.length / 4) }, (_, i) =>
				String(i + 1),
			);
			expect({ linkQueryOrder, pages: [...pages].sort((a, b) => Number(a) - Number(b)) }).toEqual({
				linkQueryOrder,
				pages: expected,
			});
		}
	});
	it('caps the page count with an error when more remain', async () => {
		await config({ pagination: 'page' });
		const r = await run({
			call: 'paginate',
			path: 'appointments/',
			maxPages: 3,
			qs: JSON.stringify({ page_size: 10 }),
		});
		expect(r.error?.message).toMatch(/Stopped after 3 pages/);
		expect(await requests()).toHaveLength(3);
	});
	it('reads a bare-array webhook list and a paginated one alike', async () => {
		for (const url of ['https://hooks.test/1', 'https://hooks.test/2', 'https://hooks.test/3']) {
			await run({
				call: 'createWebhook',
				body: JSON.stringify({ url, events: ['appointment.created'] }),
			});
		}
		for (const webhookList of ['array', 'paginated']) {
			await config({ webhookList });
			const r = await run({ call: 'listWebhooks' });
			expect(
				records(r)
					.map((w) => w.url)
					.sort(),
			).toEqual(['https://hooks.test/1', 'https://hooks.test/2', 'https://hooks.test/3']);
		}
	});
});
