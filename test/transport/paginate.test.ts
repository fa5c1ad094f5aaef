/**
 * Pagination edge cases the sandbox does not produce on its own (loops, repeated records, odd shapes), served by the
 * fake service, run through n8n-core's WorkflowExecute. The origin check on next links:
 * test/reliability/security.origins.test.ts.
 */
import { sendJson, startFakeService, type FakeService } from '../helpers/fakeService';
import { runNode } from '../helpers/n8n';
import { TransportTestNode } from './transportTestNode';

let api: FakeService;
let apiUrl: string;
let pages: Record<string, unknown> = {};
/** Path and query of every request, in order. */
const hits = () => api.requests.map((q) => `${q.path}${q.query}`);

beforeAll(async () => {
	api = await startFakeService();
	api.handle = (req, res) => {
		const body = pages[`${req.path}${req.query}`];
		sendJson(res, body === undefined ? 404 : 200, body ?? { detail: 'Not found.' });
	};
	apiUrl = api.url;
});

afterAll(async () => {
	await api.close();
});

beforeEach(() => {
	api.requests.length = 0;
});

const rec = (k: string) => ({ appointment_key: k });

async function list(extra: Record<string, unknown> = {}) {
	const result = await runNode({
		nodeType: new TransportTestNode(),
		parameters: {
			call: 'paginate',
			path: 'appointments/',
			policy: '{"baseDelayMs":10}',
			...extra,
		} as never,
		credentials: { baseUrl: apiUrl, accessToken: 'paginate-token-abcdef' },
	});
	return { keys: (result.items[0] ?? []).map((i) => i.json.appointment_key), error: result.error };
}

it('follows absolute and relative next links, skips repeated records, stops at a next already fetched', async () => {
	pages = {
		'/api/v3/appointments/': {
			results: [rec('a'), rec('b')],
			next: `${apiUrl}/api/v3/appointments/?page=2`,
		},
		'/api/v3/appointments/?page=2': { results: [rec('b'), rec('c')], next: '?page=3' },
		'/api/v3/appointments/?page=3': { results: [rec('d')], next: '/api/v3/appointments/?page=2' },
	};
	const { keys, error } = await list();
	expect(error).toBeUndefined();
	expect(keys).toEqual(['a', 'b', 'c', 'd']);
	expect(hits()).toEqual([
		'/api/v3/appointments/',
		'/api/v3/appointments/?page=2',
		'/api/v3/appointments/?page=3',
	]);
});

it('stops on an empty page even when it names a next, and accepts {results} without next and bare arrays', async () => {
	pages = {
		'/api/v3/appointments/': { results: [rec('a')], next: '?page=2' },
		'/api/v3/appointments/?page=2': { results: [], next: '?page=3' },
	};
	expect((await list()).keys).toEqual(['a']);
	expect(hits()).toHaveLength(2);
	pages = { '/api/v3/appointments/': { count: 999, results: [rec('x'), rec('y')] } };
	expect((await list()).keys).toEqual(['x', 'y']); // a larger count without next is not guessed at
	pages = { '/api/v3/appointments/': [rec('p'), rec('q'), rec('p')] };
	expect((await list()).keys).toEqual(['p', 'q']);
});

it('caps the number of pages with an error when more remain', async () => {
	pages = {};
	for (let p = 1; p <= 10; p++) {
		pages[p === 1 ? '/api/v3/appointments/' : `/api/v3/appointments/?page=${p}`] = {
			results: [rec(`k${p}`)],
			next: `?page=${p + 1}`,
		};
	}
	const { error } = await list({ maxPages: 4 });
	expect(error?.message).toMatch(/^Stopped after 4 pages while the service still offered more/);
	expect(hits()).toHaveLength(4);
});

it('rejects a list response of an unexpected shape with a clear error', async () => {
	pages = { '/api/v3/appointments/': { items: [rec('a')] } };
	const { error } = await list();
	expect(error?.message).toMatch(/expected a JSON array or an object with a "results" array/);
});

describe('records that are not objects (issue 10, behaviour 3)', () => {
	it.each([
		['null', null, /not an object: null at position 2 of page 2/],
		['a number', 42, /not an object: number 42 at position 2 of page 2/],
		['a text', 'oops', /not an object: the text "oops" at position 2 of page 2/],
	])(
		'a page holding %s fails with a clear message instead of a TypeError',
		async (_label, bad, message) => {
			pages = {
				'/api/v3/appointments/': { results: [rec('a')], next: '?page=2' },
				'/api/v3/appointments/?page=2': { results: [rec('b'), bad] },
			};
			const { error } = await list();
			expect(error?.message).toMatch(message);
			expect(error).not.toBeInstanceOf(TypeError);
		},
	);

	it('the Appointments node with Continue On Fail: that input item becomes {error}, the others run', async () => {
		pages = {
			'/api/v3/appointments/?status=CONFIRMED': { results: [rec('c1'), rec('c2')] },
			'/api/v3/appointments/?status=PENDING': { results: [rec('p1'), null, rec('p2')] },
			'/api/v3/appointments/?status=NO_SHOW': { results: [rec('n1')] },
		};
		for (const output of ['raw', 'simple']) {
			const result = await runNode({
				parameters: {
					resource: 'appointment',
					operation: 'getAll',
					returnAll: true,
					output,
					filters: { status: '={{ $json.status }}' },
				},
				credentials: { baseUrl: apiUrl, accessToken: 'paginate-token-abcdef' },
				input: [{ status: 'CONFIRMED' }, { status: 'PENDING' }, { status: 'NO_SHOW' }],
				continueOnFail: true,
			});
			expect(result.error).toBeUndefined();
			const out = result.items[0].map((i) => i.json);
			expect(out.map((j) => j.appointment_key ?? 'error')).toEqual(['c1', 'c2', 'error', 'n1']);
			expect(String(out[2].error)).toMatch(
				/list answer held a record that is not an object: null at position 2 of page 1/,
			);
		}
	});
});

describe('pagination limits (issue 10, behaviour 8)', () => {
	it.each([
		['an encoded ../ out of the list', '/api/v3/appointments/..%2Fwebhooks/?page=2'],
		['encoded dot segments', '/api/v3/appointments/%2e%2e/webhooks/?page=2'],
		['a double-dot relative link', '../webhooks/?page=2'],
		['another endpoint', '/api/v3/webhooks/?page=2'],
		['an encoded backslash', '/api/v3/appointments/..%5Cwebhooks/?page=2'],
	])('refuses a next that leaves the list endpoint (%s), nothing sent', async (_label, next) => {
		pages = { '/api/v3/appointments/': { results: [rec('a')], next } };
		const { error } = await list();
		expect(error?.message).toMatch(
			/^Refusing to follow a pagination link that leaves the list endpoint \/api\/v3\/appointments\//,
		);
		expect(hits()).toEqual(['/api/v3/appointments/']);
	});

	it('still follows a next whose dot segments stay on the list', async () => {
		pages = {
			'/api/v3/appointments/': { results: [rec('a')], next: '/api/v3/x/../appointments/./?page=2' },
			'/api/v3/appointments/?page=2': { results: [rec('b')] },
		};
		const { keys, error } = await list();
		expect(error).toBeUndefined();
		expect(keys).toEqual(['a', 'b']);
	});

	it('a service that keeps answering pages with nothing new stops after 3 such pages with a clear error', async () => {
		pages = {};
		for (let p = 1; p <= 50; p++) {
			pages[p === 1 ? '/api/v3/appointments/' : `/api/v3/appointments/?page=${p}`] = {
				results: [rec('same-1'), rec('same-2')],
				next: `?page=${p + 1}`,
			};
		}
		const { error } = await list();
		expect(error?.message).toMatch(
			/^Stopped reading: the service answered 3 pages in a row with nothing not already returned/,
		);
		expect(hits()).toHaveLength(4); // the first page, then the 3 pages with nothing new
	});
});
