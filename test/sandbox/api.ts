/**
 * What the sandbox API test files share: a sandbox reset before each test, clients with the API token, the admin
 * token and none, and a few records and shortcuts.
 */
import { CANCELLED_STATUSES, STATUSES } from '../../sandbox';
import { ADMIN, TOKEN, client, start, type Sandbox } from './helpers';

// a live binding: set in beforeAll, read by the tests of the file that called useApiSandbox
export let sb: Sandbox;
export const api = client(() => sb.url, TOKEN);
export const adm = client(() => sb.url, ADMIN);
export const anon = client(() => sb.url, undefined);
export const NON_CANCELLED = STATUSES.filter((s) => !CANCELLED_STATUSES.has(s));
export const PUBLIC_FIELDS = [
	'appointment_key',
	'calendar',
	'person',
	'search_code',
	'start_date',
	'status',
];
export const MISSING = '0f0e0d0c-0b0a-4908-8706-050403020100';

/** Starts the sandbox for the calling test file and resets it before each test. */
export function useApiSandbox(): void {
	beforeAll(async () => {
		sb = await start();
	});
	afterAll(() => sb?.close());
	beforeEach(() => adm.ok('POST', '/__sandbox/reset/'));
}

export async function make(status: string, extra: Record<string, unknown> = {}) {
	return adm.ok('POST', '/__sandbox/appointments/', { status, ...extra });
}
export const internal = (key: string) => adm.ok('GET', `/__sandbox/appointments/${key}/`);
