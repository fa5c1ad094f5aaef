/**
 * What the list filter test files share: a sandbox with one unpaginated seed, its internal records (`all`, filter-only
 * attributes included) to check the API's answers against, and the query and comparison helpers.
 */
import { DateTime } from 'luxon';

import { ADMIN, TOKEN, client, start, type Sandbox } from './helpers';

export const TZ = 'America/Santiago';
// live bindings (sb, all): set in beforeAll, read by the tests of the file that called useFilterSandbox
export let sb: Sandbox;
export const api = client(() => sb.url, TOKEN);
export const adm = client(() => sb.url, ADMIN);
export let all: any[];

export const ms = (iso: string) => DateTime.fromISO(iso).toMillis();
export const wall = (iso: string, zone = TZ) =>
	DateTime.fromISO(iso).setZone(zone).toFormat("yyyy-MM-dd'T'HH:mm:ss");
export const keysOf = (list: any[]) => list.map((r) => r.appointment_key);
export const sortedKeys = (list: any[]) => keysOf(list).sort();

export async function query(
	params: Array<[string, string]> | Record<string, string>,
): Promise<any[]> {
	const qs = new URLSearchParams(params as any).toString();
	const r = await api('GET', `/api/v3/appointments/?${qs}`);
	if (r.status !== 200) throw new Error(`${qs} -> ${r.status} ${r.text}`);
	return r.body.results;
}

/** Runs the query and compares with the expected records; the expectation must be a proper, non-empty subset. */
export async function expectFilter(
	params: Array<[string, string]> | Record<string, string>,
	expected: any[],
	opts: { allowAll?: boolean } = {},
) {
	expect(expected.length).toBeGreaterThan(0);
	if (!opts.allowAll) expect(expected.length).toBeLessThan(all.length);
	const got = await query(params);
	expect(sortedKeys(got)).toEqual(sortedKeys(expected));
	// sorted by start, then key
	const starts = got.map((r) => ms(r.start_date));
	expect(starts).toEqual([...starts].sort((a, b) => a - b));
}

/** Reads the sandbox's internal records into `all` (again after a test reset the seed). */
export async function readAll(): Promise<void> {
	all = (await adm.ok('GET', '/__sandbox/appointments/')).appointments;
}

/** Starts the sandbox for the calling test file and reads its internal records into `all`. */
export function useFilterSandbox(): void {
	beforeAll(async () => {
		sb = await start({ seed: 240, seedValue: 11, pagination: 'none' });
		await readAll();
	});
	afterAll(() => sb?.close());
}
