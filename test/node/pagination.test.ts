/**
 * Get Many over every list shape of the sandbox: page numbers, cursors, no pagination, relative links, limits. The
 * one home of "no page fetched beyond the limit", pages read one after the other or ahead (Page Concurrency).
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, runOk, sortKeys, useSandbox, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
let all: IDataObject[];

useSandbox({ seed: 130, seedValue: 3 }, (started) => ({ sb, admin } = started));

beforeAll(async () => {
	all = await admin.appointments();
	expect(all).toHaveLength(130);
});

beforeEach(async () => {
	await admin.clearRequests();
});

const listGets = async () =>
	(await apiRequests(admin, 'GET')).filter((r) => r.path === '/api/v3/appointments/');

const params = (extra: IDataObject) => ({ resource: 'appointment', operation: 'getAll', ...extra });

describe.each([
	['page', 'absolute'],
	['page', 'relative'],
	['cursor', 'absolute'],
	['cursor', 'relative'],
])('pagination %s with %s next links', (pagination, nextLinks) => {
	beforeAll(async () => {
		await admin.config({ pagination, nextLinks });
	});

	test('Return All follows every page once and yields each appointment once, in the same order with pages read ahead', async () => {
		const one = await runOk(sb, params({ returnAll: true, advanced: { pageConcurrency: 1 } }));
		expect(one).toHaveLength(130);
		expect(sortKeys(one)).toEqual(sortKeys(all));
		expect(await listGets()).toHaveLength(3); // 50 + 50 + 30
		await admin.clearRequests();
		expect(await runOk(sb, params({ returnAll: true, advanced: { pageConcurrency: 4 } }))).toEqual(
			one,
		);
		expect(await listGets()).toHaveLength(3);
	});

	test.each([1, 4])(
		'a limit stops early: no page beyond the one that completes it (page concurrency %i)',
		async (pageConcurrency) => {
			await admin.clearRequests();
			const advanced = { pageConcurrency };
			const out = await runOk(sb, params({ returnAll: false, limit: 60, advanced }));
			expect(out).toHaveLength(60);
			expect(new Set(out.map((a) => a.appointment_key)).size).toBe(60);
			expect(await listGets()).toHaveLength(2);
			await admin.clearRequests();
			expect(await runOk(sb, params({ returnAll: false, limit: 50, advanced }))).toHaveLength(50);
			expect(await listGets()).toHaveLength(1);
		},
	);

	test('the default limit is 50', async () => {
		expect(await runOk(sb, params({}))).toHaveLength(50);
	});
});

describe('no pagination (bare list)', () => {
	beforeAll(async () => {
		await admin.config({ pagination: 'none' });
	});

	test('one request, everything; a limit cuts the one page', async () => {
		expect(sortKeys(await runOk(sb, params({ returnAll: true })))).toEqual(sortKeys(all));
		expect(await listGets()).toHaveLength(1);
		expect(await runOk(sb, params({ limit: 7 }))).toHaveLength(7);
	});
});

test('one output item list per input item, each paired with its input', async () => {
	await admin.config({ pagination: 'page', nextLinks: 'absolute' });
	const { runNode } = await import('../helpers/n8n');
	const result = await runNode({
		parameters: params({ limit: 2, filters: { status: '={{ $json.status }}' } }),
		credentials: { baseUrl: sb.url, accessToken: 'node-test-token' },
		input: [{ status: 'CONFIRMED' }, { status: 'PENDING' }],
	});
	expect(result.error).toBeUndefined();
	const items = result.items[0];
	expect(items.map((i) => i.json.status)).toEqual(['CONFIRMED', 'CONFIRMED', 'PENDING', 'PENDING']);
	expect(items.map((i) => (i.pairedItem as { item: number }).item)).toEqual([0, 0, 1, 1]);
});
