/**
 * Get Many's windows when the account's zone is not the workflow's (issue 36, point 5), against the sandbox started
 * in the account's zone: with Account Time Zone empty (every credential saved before the field existed) a Date Range
 * still returns exactly the appointments starting in it, Limit counting inside it; with the zone set, Created At is
 * the typed date on the account's calendar. Zones east and west of UTC, on days the account's clocks change.
 */
import { DateTime, Settings } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { apiRequests, runOk, useSandbox, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
useSandbox({ seed: 0 }, (started) => ({ sb, admin } = started));

const base = { resource: 'appointment', operation: 'getAll', output: 'raw' };

afterEach(async () => {
	Settings.now = () => Date.now();
	await admin.config({ timeZone: 'America/Santiago', dstWallClock: 'zoneinfo', pageSize: 50 });
});

/** The service's account in `account`, nothing in it, its request log empty. */
async function account(zone: string, dstWallClock = 'zoneinfo', pageSize = 50): Promise<void> {
	await admin.reset({ seed: 0 }); // and the configuration as started
	await admin.config({ timeZone: zone, dstWallClock, pageSize });
	await admin.clearRequests();
}

async function listQueries(): Promise<Array<Record<string, string | string[]>>> {
	return (await apiRequests(admin, 'GET'))
		.filter((r) => r.path === '/api/v3/appointments/')
		.map((r) => r.query);
}

/**
 * One appointment per hour of `day` on `zone`'s calendar, at 00:00:00 and 23:59:59 at its ends and half past in
 * between, and one a second outside it on each side: the keys inside, in start order.
 */
async function dayOfAppointments(day: string, zone: string): Promise<string[]> {
	const first = DateTime.fromISO(day, { zone });
	const inside = Array.from({ length: 24 }, (_, h) =>
		first.set({ hour: h, minute: h === 0 ? 0 : h === 23 ? 59 : 30, second: h === 23 ? 59 : 0 }),
	);
	const outside = [first.minus({ seconds: 1 }), first.plus({ days: 1 })];
	const keys: string[] = [];
	for (const start of [...inside, ...outside]) {
		const made = await admin.create({ start_date: start.toISO(), status: 'CONFIRMED' });
		if (inside.includes(start)) keys.push(String(made.appointment_key));
	}
	return keys;
}

const keysOf = (out: IDataObject[]) => out.map((a) => String(a.appointment_key));

/** [the account's zone, the workflow's, the workflow's day]: each day holds a clock change of the account's, or none. */
const DAYS: Array<[string, string, string]> = [
	['Asia/Tokyo', 'America/New_York', '2026-03-10'],
	['America/Santiago', 'Europe/Berlin', '2026-04-05'], // Santiago repeats 23:00-23:59 of 4 April
	['America/Santiago', 'Europe/Berlin', '2026-09-06'], // Santiago skips 00:00-00:59 of 6 September
	['Europe/Berlin', 'America/Los_Angeles', '2026-03-28'], // Berlin skips 02:00-02:59 of 29 March
	['Europe/Berlin', 'America/Los_Angeles', '2026-10-24'], // Berlin repeats 02:00-02:59 of 25 October
	['Australia/Sydney', 'Europe/London', '2026-04-04'], // Sydney repeats 02:00-02:59 of 5 April
	['Pacific/Honolulu', 'Asia/Kolkata', '2026-03-10'],
	['Pacific/Kiritimati', 'Pacific/Pago_Pago', '2026-06-15'], // 25 hours apart
];

/** Luxon's clock at noon of `day` in `zone`, for a Today on that day. */
function noonOf(day: string, zone: string): void {
	const noon = DateTime.fromISO(`${day}T12:00:00`, { zone }).toMillis();
	Settings.now = () => noon;
}

describe('Account Time Zone empty, the account in another zone', () => {
	test.each(DAYS)(
		'account in %s, workflow in %s: Today on %s returns exactly its 24 appointments, whether the service reads or refuses a time its clocks skip or repeat',
		async (accountZone, workflowZone, day) => {
			for (const dstWallClock of ['zoneinfo', 'refuse']) {
				await account(accountZone, dstWallClock);
				const inside = await dayOfAppointments(day, workflowZone);
				noonOf(day, workflowZone);
				const out = await runOk(
					sb,
					{ ...base, dateRange: 'today', returnAll: true },
					{ timezone: workflowZone },
				);
				expect([dstWallClock, keysOf(out)]).toEqual([dstWallClock, inside]);
			}
		},
	);

	test('Limit counts inside the range: the first 5 of the day, reading no page past the one holding the fifth', async () => {
		for (const [accountZone, workflowZone, day] of DAYS) {
			await account(accountZone, 'zoneinfo', 4);
			const inside = await dayOfAppointments(day, workflowZone);
			noonOf(day, workflowZone);
			const out = await runOk(
				sb,
				{ ...base, dateRange: 'today', returnAll: false, limit: 5 },
				{ timezone: workflowZone },
			);
			expect([accountZone, day, keysOf(out)]).toEqual([accountZone, day, inside.slice(0, 5)]);
			// Everything made lies inside the padded query, listed by start: pages of 4 up to the fifth one inside.
			const listed = keysOf(await admin.appointments()).indexOf(inside[4]);
			expect([accountZone, day, (await listQueries()).length]).toEqual([
				accountZone,
				day,
				Math.floor(listed / 4) + 1,
			]);
		}
	});
});

describe("Created At with the Account Time Zone set: a typed date is that date on the account's calendar", () => {
	/** Appointments created a second either side of each edge of `day` in `zone`: the keys created on it. */
	async function createdAround(day: string, zone: string): Promise<string[]> {
		const first = DateTime.fromISO(day, { zone });
		const next = DateTime.fromISO(first.plus({ days: 1 }).toISODate()!, { zone });
		const last = next.minus({ seconds: 1 });
		const keys: string[] = [];
		for (const [at, on] of [
			[first.minus({ seconds: 1 }), false],
			[first, true],
			[first.plus({ hours: 12 }), true],
			[last, true],
			[last.plus({ seconds: 1 }), false],
		] as const) {
			const made = await admin.create({ created_at: at.toISO() });
			if (on) keys.push(String(made.appointment_key));
		}
		return keys.sort();
	}

	/** [account, workflow, Created At as typed, created_at as sent, the account's day it selects]. */
	const cases: Array<[string, string, string, string, string]> = [
		['America/New_York', 'UTC', '2026-03-10', '2026-03-10T00:00:00', '2026-03-10'],
		[
			'Asia/Tokyo',
			'America/Los_Angeles',
			'2026-03-10T20:00:00',
			'2026-03-10T20:00:00',
			'2026-03-10',
		],
		// Santiago's 6 September starts at 01:00 (a service may read 00:00 as the day before, or refuse it).
		['America/Santiago', 'Europe/Berlin', '2026-09-06', '2026-09-06T01:00:00', '2026-09-06'],
		['Europe/Berlin', 'America/Santiago', '2026-10-25', '2026-10-25T00:00:00', '2026-10-25'],
		['Australia/Sydney', 'America/Chicago', '2026-04-05', '2026-04-05T00:00:00', '2026-04-05'],
	];

	test.each(cases)(
		'account in %s, workflow in %s: %s is sent as %s and selects what was created on %s there',
		async (accountZone, workflowZone, typed, sent, day) => {
			for (const dstWallClock of ['zoneinfo', 'earlier', 'refuse']) {
				await account(accountZone, dstWallClock);
				const created = await createdAround(day, accountZone);
				const out = await runOk(
					sb,
					{ ...base, returnAll: true, filters: { createdAt: typed } },
					{ timezone: workflowZone, accountTimeZone: accountZone },
				);
				expect((await listQueries())[0].created_at).toBe(sent);
				expect([dstWallClock, keysOf(out).sort()]).toEqual([dstWallClock, created]);
			}
		},
	);

	test("a moment with an offset, or a DateTime from an expression, is that moment: the account's day that holds it", async () => {
		await account('America/New_York');
		const opts = { timezone: 'Europe/Berlin', accountTimeZone: 'America/New_York' };
		for (const typed of [
			'2026-03-10T03:00:00+01:00',
			"={{ DateTime.fromISO('2026-03-10T03:00:00', { zone: 'Europe/Berlin' }) }}",
		]) {
			await admin.clearRequests();
			await runOk(sb, { ...base, returnAll: true, filters: { createdAt: typed } }, opts);
			expect((await listQueries())[0].created_at).toBe('2026-03-09T22:00:00');
		}
	});
});
