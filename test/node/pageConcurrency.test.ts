/**
 * Get Many with Page Concurrency (issue 15): the same items, in the same order, whether pages are read one after
 * the other or four at a time, from a small DRF-style service on the fake service (with and without `count`,
 * absolute and relative links; the sandbox's list shapes: pagination.test.ts); a list that changes during the read
 * never yields a record twice and says so on the node's output; a 429 in the middle of a concurrent read pauses
 * every page, and Max Retry Wait bounds the whole list. */
import type { ServerResponse } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import { startFakeService, type FakeRequest, type FakeService } from '../helpers/fakeService';
import { runNode, type RunNodeResult } from '../helpers/n8n';
import { apiRequests, runOk, useSandbox, type Admin, type Sandbox } from './helpers';

const params = (extra: IDataObject) => ({ resource: 'appointment', operation: 'getAll', ...extra });
const keysOf = (items: IDataObject[]) => items.map((a) => String(a.appointment_key));
const hintsOf = (result: RunNodeResult) =>
	(result.run.data.resultData.runData.Node?.[0]?.hints ?? []).map((h) => h.message);

describe('against the sandbox', () => {
	let sb: Sandbox;
	let admin: Admin;
	useSandbox({ seed: 140, seedValue: 5 }, (started) => ({ sb, admin } = started));

	const listGets = async () =>
		(await apiRequests(admin, 'GET')).filter((r) => r.path === '/api/v3/appointments/');

	afterEach(async () => {
		await admin.clearFaults();
		await admin.config({ pagination: 'page', nextLinks: 'absolute', pageSize: 50 });
	});

	test('a 429 on page 7 of 20 under concurrency: everything once, in order, and no page sent during the pause', async () => {
		await admin.config({ pageSize: 7 });
		const one = await runOk(sb, params({ returnAll: true, advanced: { pageConcurrency: 1 } }));
		const page = (n: number) => ({
			method: 'GET',
			path: '/api/v3/appointments/',
			query: { page: String(n) },
		});
		// Page 6 answers late, so the reader takes it (and starts page 10) while page 7's Retry-After is running.
		await admin.fault({ match: page(6), delayMs: 300 });
		await admin.fault({ match: page(7), status: 429, retryAfter: 1 });
		await admin.clearRequests();
		const four = await runOk(sb, params({ returnAll: true, advanced: { pageConcurrency: 4 } }));
		expect(four).toEqual(one);
		const log = await listGets();
		expect(log).toHaveLength(21); // 20 pages, page 7 twice
		const refused = log.find((r) => r.status === 429)!;
		expect(refused.query.page).toBe('7');
		// Page 10, started during the pause, waited for the shared Retry-After (1 s) like page 7's retry.
		const pausedUntil = Date.parse(refused.at) + 1000;
		const sentAt = (n: number) =>
			log.filter((r) => r.query.page === String(n)).map((r) => Date.parse(r.at));
		expect(Math.max(...sentAt(7))).toBeGreaterThanOrEqual(pausedUntil - 20);
		expect(sentAt(10)[0]).toBeGreaterThanOrEqual(pausedUntil - 20);
	});

	// Versions 1-3's Max Retry Wait (version 4 keeps the same shared budget at its fixed 60 s).
	test('Max Retry Wait bounds the whole list, not each page', async () => {
		await admin.config({ pageSize: 7 });
		const page = (n: number) => ({
			method: 'GET',
			path: '/api/v3/appointments/',
			query: { page: String(n) },
		});
		await admin.fault({ match: page(3), status: 429, retryAfter: 1 });
		await admin.fault({ match: page(12), status: 429, retryAfter: 1 });
		for (const pageConcurrency of [1, 4]) {
			const result = await runNode({
				parameters: params({
					returnAll: true,
					advanced: { pageConcurrency, maxRetryWaitSeconds: 1.5 },
				}),
				credentials: { baseUrl: sb.url, accessToken: 'node-test-token' },
				nodeTypeVersion: 3,
			});
			expect(result.error?.message).toMatch(
				/the service asked to retry after 1\.0 s, more than the 0\.\d s left of the retry budget/,
			);
			await admin.fault({ match: page(3), status: 429, retryAfter: 1 });
			await admin.fault({ match: page(12), status: 429, retryAfter: 1 });
		}
	});

	test('Page Concurrency outside 1..10 is refused before anything is sent', async () => {
		await admin.clearRequests();
		const result = await runNode({
			parameters: params({ returnAll: true, advanced: { pageConcurrency: 0 } }),
			credentials: { baseUrl: sb.url, accessToken: 'node-test-token' },
		});
		expect(result.error?.message).toMatch(/Page Concurrency/);
		expect(await listGets()).toHaveLength(0);
	});
});

describe('against a DRF-style service (with or without count, absolute or relative links)', () => {
	interface Variant {
		count: boolean;
		links: 'absolute' | 'relative';
		/** Changes the list once the first page has been answered. */
		change?: 'insert' | 'delete';
	}
	const SIZE = 5;
	const original = Array.from({ length: 52 }, (_, i) => ({
		appointment_key: `k${String(i).padStart(2, '0')}`,
		status: 'CONFIRMED',
	}));
	let records: IDataObject[] = [];
	let variant: Variant = { count: true, links: 'absolute' };
	let served = 0;
	let inFlight = 0;
	let maxInFlight = 0;
	let held: Array<() => void> = [];
	let quiet: NodeJS.Timeout | undefined;
	let service: FakeService;
	let url: string;

	// Answers are held until 4 requests are waiting or none arrived for QUIET_MS: a client that sends pages at
	// once shows up as several in flight, one that waits for each answer as one. Pages sent at once arrive within
	// a millisecond or two of each other; a client reading one page at a time pays QUIET_MS per page.
	const QUIET_MS = 30;
	const release = () => {
		clearTimeout(quiet);
		const all = held;
		held = [];
		for (const answer of all) answer();
	};

	function answer(req: FakeRequest, res: ServerResponse): void {
		const u = new URL(`${req.path}${req.query}`, url);
		const page = Number(u.searchParams.get('page') ?? '1');
		const slice = records.slice((page - 1) * SIZE, page * SIZE);
		const pages = Math.max(1, Math.ceil(records.length / SIZE));
		const link = (p: number) => {
			const q = new URLSearchParams(u.searchParams);
			if (p === 1) q.delete('page');
			else q.set('page', String(p));
			const rel = `${u.pathname}${q.size ? `?${q}` : ''}`;
			return variant.links === 'relative' ? rel : `${url}${rel}`;
		};
		const body: IDataObject = {
			...(variant.count ? { count: records.length } : {}),
			next: page < pages ? link(page + 1) : null,
			previous: page > 1 ? link(page - 1) : null,
			results: slice,
		};
		res.writeHead(page > pages ? 404 : 200, { 'content-type': 'application/json' });
		res.end(JSON.stringify(page > pages ? { detail: 'Invalid page.' } : body));
		served++;
		if (served === 1 && variant.change === 'insert')
			records = [{ appointment_key: 'new', status: 'PENDING' }, ...records];
		if (served === 1 && variant.change === 'delete')
			records = records.filter((r) => r.appointment_key !== 'k00');
	}

	beforeAll(async () => {
		service = await startFakeService();
		service.handle = (req, res) => {
			inFlight++;
			maxInFlight = Math.max(maxInFlight, inFlight);
			held.push(() => {
				inFlight--;
				answer(req, res);
			});
			if (held.length >= 4) release();
			else {
				clearTimeout(quiet);
				quiet = setTimeout(release, QUIET_MS);
			}
		};
		url = service.url;
	});
	afterAll(async () => {
		release();
		await service.close();
	});

	async function read(v: Variant, pageConcurrency: number, extra: IDataObject = {}) {
		variant = v;
		records = [...original];
		served = 0;
		maxInFlight = 0;
		const result = await runNode({
			parameters: params({
				returnAll: true,
				output: 'raw',
				...extra,
				advanced: { pageConcurrency },
			}),
			credentials: { baseUrl: url, accessToken: 'drf-token-0123456789' },
		});
		if (result.error) throw result.error;
		return {
			keys: keysOf(result.items[0].map((i) => i.json)),
			served,
			maxInFlight,
			hints: hintsOf(result),
		};
	}

	test.each([
		[true, 'absolute'],
		[true, 'relative'],
		[false, 'absolute'],
		[false, 'relative'],
	] as const)(
		'count %s, %s links: identical items with page concurrency 1 and 4',
		async (count, links) => {
			const one = await read({ count, links }, 1);
			const four = await read({ count, links }, 4);
			expect(one.keys).toEqual(keysOf(original));
			expect(four.keys).toEqual(one.keys);
			expect(four.served).toBe(11);
			expect(one.maxInFlight).toBe(1);
			// Only a count and an absolute next prove page-number paging; otherwise next is followed one page at a time.
			if (count && links === 'absolute') {
				expect(four.maxInFlight).toBeGreaterThan(1);
				expect(four.maxInFlight).toBeLessThanOrEqual(4);
			} else expect(four.maxInFlight).toBe(1);
			expect(four.hints).toEqual([]);
		},
	);

	test.each([1, 4])(
		'an appointment created during the read (page concurrency %i): no record twice, and the output says what is not guaranteed',
		async (pc) => {
			const { keys, hints } = await read({ count: true, links: 'absolute', change: 'insert' }, pc);
			expect(new Set(keys).size).toBe(keys.length);
			expect([...keys].sort()).toEqual(keysOf(original).sort());
			expect(hints).toHaveLength(1);
			expect(hints[0]).toMatch(
				/^The list changed while it was read \(the service's count went from 52 to 53\): each record was returned once, but records added, removed or moved during the read may be missing/,
			);
		},
	);

	test.each([1, 4])(
		'an appointment removed during the read (page concurrency %i): no record twice, and the output says so',
		async (pc) => {
			const { keys, hints } = await read({ count: true, links: 'absolute', change: 'delete' }, pc);
			expect(new Set(keys).size).toBe(keys.length);
			expect(keys.every((k) => keysOf(original).includes(k))).toBe(true);
			expect(hints[0]).toMatch(/count went from 52 to 51/);
		},
	);
});
