/** Pagination variants of the list endpoints: page (absolute/relative next, nextOrigin), cursor, none; webhook list shapes. */
import { ADMIN, TOKEN, client, start, type Sandbox } from './helpers';

let sb: Sandbox;
const api = client(() => sb.url, TOKEN);
const adm = client(() => sb.url, ADMIN);
const config = (c: Record<string, unknown>) => adm.ok('POST', '/__sandbox/config/', c);
let reference: string[];

beforeAll(async () => {
	sb = await start({ seed: 620, seedValue: 4 });
});
afterAll(() => sb?.close());
beforeEach(async () => {
	await adm.ok('POST', '/__sandbox/reset/');
	await config({ pagination: 'none' });
	reference = (await api.ok('GET', '/api/v3/appointments/')).results.map(
		(r: any) => r.appointment_key,
	);
	await adm.ok('POST', '/__sandbox/reset/');
});

/** Follows next links from `first`; returns pages. */
async function walk(first: string, dir: 'next' | 'previous' = 'next'): Promise<any[]> {
	const pages: any[] = [];
	let link: string | null = first;
	while (link) {
		const path: string = link.startsWith('http') ? link.slice(new URL(link).origin.length) : link;
		if (link.startsWith('http')) expect(new URL(link).origin).toBe(sb.url);
		const page = await api.ok('GET', path);
		pages.push(page);
		link = page[dir];
		expect(pages.length).toBeLessThan(100);
	}
	return pages;
}

describe('page (default)', () => {
	it('DRF shape, 50 per page by default, absolute next links keeping the filters, previous links', async () => {
		const first = await api.ok('GET', '/api/v3/appointments/');
		expect(Object.keys(first)).toEqual(['count', 'next', 'previous', 'results']);
		expect(first.count).toBe(620);
		expect(first.results).toHaveLength(50);
		expect(first.previous).toBeNull();
		expect(first.next).toBe(`${sb.url}/api/v3/appointments/?page=2`);
		const pages = await walk('/api/v3/appointments/');
		expect(pages).toHaveLength(13);
		expect(pages.flatMap((p) => p.results.map((r: any) => r.appointment_key))).toEqual(reference);
		expect(pages[12].next).toBeNull();
		expect(pages[1].previous).toBe(`${sb.url}/api/v3/appointments/`);
		expect(pages[2].previous).toBe(`${sb.url}/api/v3/appointments/?page=2`);

		const filtered = await api.ok('GET', '/api/v3/appointments/?status=CONFIRMED&page_size=10');
		expect(filtered.next).toBe(
			`${sb.url}/api/v3/appointments/?status=CONFIRMED&page_size=10&page=2`,
		);
		const all = (await walk('/api/v3/appointments/?status=CONFIRMED&page_size=10')).flatMap(
			(p) => p.results,
		);
		expect(all).toHaveLength(filtered.count);
		expect(all.every((r) => r.status === 'CONFIRMED')).toBe(true);
	});

	it('page_size up to 500 (larger is capped); bad page/page_size is 400; a page past the end is 404', async () => {
		expect((await api.ok('GET', '/api/v3/appointments/?page_size=500')).results).toHaveLength(500);
		const capped = await api.ok('GET', '/api/v3/appointments/?page_size=10000');
		expect(capped.results).toHaveLength(500);
		expect(capped.next).toContain('page=2');
		expect(
			(await api.ok('GET', '/api/v3/appointments/?page_size=500&page=2')).results,
		).toHaveLength(120);
		for (const [qs, field] of [
			['page=0', 'page'],
			['page=abc', 'page'],
			['page=-1', 'page'],
			['page_size=0', 'page_size'],
			['page_size=ten', 'page_size'],
		]) {
			const r = await api('GET', `/api/v3/appointments/?${qs}`);
			expect([qs, r.status]).toEqual([qs, 400]);
			expect(Object.keys(r.body)).toEqual([field]);
		}
		const past = await api('GET', '/api/v3/appointments/?page=14');
		expect(past.status).toBe(404);
		expect(past.body).toEqual({ detail: 'Invalid page.' });
		const empty = await api.ok('GET', '/api/v3/appointments/?search_code=NOSUCHCODE');
		expect(empty).toEqual({ count: 0, next: null, previous: null, results: [] });
	});

	it('the default page size is configurable (pageSize, 1..500); page_size still wins', async () => {
		await config({ pageSize: 500 });
		const first = await api.ok('GET', '/api/v3/appointments/');
		expect(first.results).toHaveLength(500);
		expect(first.next).toBe(`${sb.url}/api/v3/appointments/?page=2`);
		expect((await api.ok('GET', first.next.slice(sb.url.length))).results).toHaveLength(120);
		expect((await api.ok('GET', '/api/v3/appointments/?page_size=7')).results).toHaveLength(7);
		expect((await adm.ok('GET', '/__sandbox/config/')).pageSize).toBe(500);
		const bad = await adm('POST', '/__sandbox/config/', { pageSize: 501 });
		expect(bad.status).toBe(400);
		expect(Object.keys(bad.body)).toEqual(['pageSize']);
	});

	it('a repeated list request reflects every change in between (no stale page)', async () => {
		const q = '/api/v3/appointments/?status=CONFIRMED&page_size=5';
		const before = await api.ok('GET', q);
		expect(await api.ok('GET', q)).toEqual(before);
		const victim = before.results[2].appointment_key;
		await api.ok('PATCH', `/api/v3/appointments/${victim}/`, { status: 'ATTENDED' });
		const after = await api.ok('GET', q);
		expect(after.count).toBe(before.count - 1);
		expect(after.results.map((r: any) => r.appointment_key)).not.toContain(victim);
		await config({ nextLinks: 'relative' });
		expect((await api.ok('GET', q)).next).toBe(
			'/api/v3/appointments/?status=CONFIRMED&page_size=5&page=2',
		);
		await config({ timeZone: 'UTC' });
		expect((await api.ok('GET', q)).results[0].start_date).toMatch(/Z$|\+00:00$/);
	});

	it('relative next links', async () => {
		await config({ nextLinks: 'relative' });
		const first = await api.ok('GET', '/api/v3/appointments/?page_size=100');
		expect(first.next).toBe('/api/v3/appointments/?page_size=100&page=2');
		const pages = await walk('/api/v3/appointments/?page_size=100');
		expect(pages.flatMap((p) => p.results.map((r: any) => r.appointment_key))).toEqual(reference);
	});

	it('nextOrigin writes another origin into absolute links; null restores', async () => {
		await config({ nextOrigin: 'https://evil.example:8443' });
		expect((await api.ok('GET', '/api/v3/appointments/')).next).toBe(
			'https://evil.example:8443/api/v3/appointments/?page=2',
		);
		await config({ nextOrigin: null });
		expect((await api.ok('GET', '/api/v3/appointments/')).next).toBe(
			`${sb.url}/api/v3/appointments/?page=2`,
		);
		expect((await adm('POST', '/__sandbox/config/', { nextOrigin: 'not an origin' })).status).toBe(
			400,
		);
	});

	it('linkQueryOrder sorted writes link queries sorted by name and encoded as DRF does; request restores', async () => {
		await config({ linkQueryOrder: 'sorted', nextLinks: 'relative' });
		const q =
			'/api/v3/appointments/?status=CONFIRMED&ref=%7E%2A&page_size=5&end_date=2099-01-01T00%3A00%3A00';
		const first = await api.ok('GET', q);
		expect(first.next).toBe(
			'/api/v3/appointments/?end_date=2099-01-01T00%3A00%3A00&page=2&page_size=5&ref=~%2A&status=CONFIRMED',
		);
		const second = await api.ok('GET', first.next);
		expect(second.previous).toBe(
			'/api/v3/appointments/?end_date=2099-01-01T00%3A00%3A00&page_size=5&ref=~%2A&status=CONFIRMED',
		);
		const pages = await walk('/api/v3/appointments/?status=CONFIRMED&page_size=7');
		expect(pages.flatMap((p) => p.results)).toHaveLength(pages[0].count);
		await config({ linkQueryOrder: 'request' });
		expect((await api.ok('GET', q)).next).toBe(
			'/api/v3/appointments/?status=CONFIRMED&ref=%7E*&page_size=5&end_date=2099-01-01T00%3A00%3A00&page=2',
		);
		expect((await adm('POST', '/__sandbox/config/', { linkQueryOrder: 'random' })).status).toBe(
			400,
		);
	});

	it('absolute links follow the Host the client used', async () => {
		const r = await fetch(`${sb.url.replace('127.0.0.1', 'localhost')}/api/v3/appointments/`, {
			headers: { authorization: `Bearer ${TOKEN}` },
		});
		expect(((await r.json()) as any).next).toBe(
			`${sb.url.replace('127.0.0.1', 'localhost')}/api/v3/appointments/?page=2`,
		);
	});
});

describe('cursor', () => {
	it('walks forward and back over the same complete set, with opaque cursors', async () => {
		await config({ pagination: 'cursor' });
		const first = await api.ok('GET', '/api/v3/appointments/?page_size=70');
		expect(Object.keys(first)).toEqual(['next', 'previous', 'results']);
		expect(first.next).toMatch(
			new RegExp(`^${sb.url}/api/v3/appointments/\\?page_size=70&cursor=[\\w-]+$`),
		);
		const pages = await walk('/api/v3/appointments/?page_size=70');
		expect(pages.flatMap((p) => p.results.map((r: any) => r.appointment_key))).toEqual(reference);
		expect(pages).toHaveLength(9);
		const last = pages[pages.length - 1];
		const back = await walk(last.previous.slice(sb.url.length), 'previous');
		expect(back.map((p) => p.results.map((r: any) => r.appointment_key))).toEqual(
			pages
				.slice(0, -1)
				.reverse()
				.map((p) => p.results.map((r: any) => r.appointment_key)),
		);
	});

	it('is stable when records are added before the cursor: nothing repeated, nothing skipped', async () => {
		await config({ pagination: 'cursor', nextLinks: 'relative' });
		const first = await api.ok('GET', '/api/v3/appointments/?page_size=100&status=CONFIRMED');
		// an appointment that sorts before everything already seen
		const early = await adm.ok('POST', '/__sandbox/appointments/', {
			status: 'CONFIRMED',
			start_date: '2000-01-01T10:00:00Z',
		});
		const rest = await walk(first.next);
		const keys = [...first.results, ...rest.flatMap((p) => p.results)].map(
			(r: any) => r.appointment_key,
		);
		expect(new Set(keys).size).toBe(keys.length);
		expect(keys).not.toContain(early.appointment_key);
		const confirmed = (await adm.ok('GET', '/__sandbox/appointments/')).appointments.filter(
			(a: any) => a.status === 'CONFIRMED',
		);
		expect(keys.length).toBe(confirmed.length - 1);
	});

	it('a forged cursor is 400 naming cursor', async () => {
		await config({ pagination: 'cursor' });
		for (const c of ['abc', Buffer.from('{"d":"x"}').toString('base64url')]) {
			const r = await api('GET', `/api/v3/appointments/?cursor=${c}`);
			expect(r.status).toBe(400);
			expect(Object.keys(r.body)).toEqual(['cursor']);
		}
	});
});

describe('none', () => {
	it('answers {results} with every matching record', async () => {
		await config({ pagination: 'none' });
		const r = await api.ok('GET', '/api/v3/appointments/?page_size=5&page=3');
		expect(Object.keys(r)).toEqual(['results']);
		expect(r.results).toHaveLength(620);
	});
});

describe('webhook list shapes', () => {
	it('paginated by default (page_size applies), a bare array when configured', async () => {
		for (let i = 0; i < 5; i++)
			await api.ok('POST', '/api/v3/webhooks/', {
				url: `https://h.test/${i}`,
				events: ['appointment.created'],
			});
		const p1 = await api.ok('GET', '/api/v3/webhooks/?page_size=2');
		expect(p1.count).toBe(5);
		expect(p1.next).toBe(`${sb.url}/api/v3/webhooks/?page_size=2&page=2`);
		const pages = await walk('/api/v3/webhooks/?page_size=2');
		expect(pages.flatMap((p) => p.results.map((w: any) => w.url))).toEqual(
			[0, 1, 2, 3, 4].map((i) => `https://h.test/${i}`),
		);
		await config({ webhookList: 'array' });
		const arr = await api.ok('GET', '/api/v3/webhooks/');
		expect(Array.isArray(arr)).toBe(true);
		expect(arr.map((w: any) => w.url)).toEqual([0, 1, 2, 3, 4].map((i) => `https://h.test/${i}`));
	});
});
