/**
 * Part 10: Find Free Times over a month of a busy calendar (2,000 appointments; 200 in --smoke) against Get Many
 * reading the same pages (its Date Range set to the window Find Free Times reads, the same calendar), both through
 * the n8n-core harness, alternating in the same run. Targets: Find Free Times' list requests are the pages needed
 * (ceil(appointments in its window / page size)), its time within 1.2 of Get Many's: CPU time of the process
 * (client and in-process sandbox, the same pages for both), paired round by round, as part 1 judges what our code
 * adds (wall time on a shared 2-core machine swings by half between rounds); wall time is context.
 */
import {
	ADMIN_TOKEN,
	API_TOKEN,
	Client,
	clearSandboxRequests,
	median,
	round,
	sandboxRequests,
	startBenchSandbox,
	type PartContext,
	type Row,
} from '../lib/common';
import { loadRunNode } from '../lib/node';
import { pairedRatio, pairedRatioSpread, runRounds } from '../lib/rounds';

const CAL = '5f1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c40';
const ZONE = 'America/Santiago';

/** `total` appointments of one calendar on the 30 days of November 2026, 08:00-19:45 on a quarter-hour grid. */
async function busyMonth(admin: Client, total: number): Promise<void> {
	let seed = 7;
	const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
	for (let k = 0; k < total; k++) {
		const day = String(1 + next(30)).padStart(2, '0');
		const minute = 8 * 60 + 15 * next(48);
		const hhmm = `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
		await admin.ok('POST', '/__sandbox/appointments/', {
			start_date: `2026-11-${day}T${hhmm}:00-03:00`,
			calendar: { calendar_key: CAL, name: 'Busy' },
		});
	}
}

export async function runFreeTimesPart(ctx: PartContext): Promise<Row[]> {
	const total = ctx.smoke ? 200 : 2000;
	const { runNode } = loadRunNode(ctx);
	const sb = await startBenchSandbox({ seed: 0, timeZone: ZONE });
	const admin = new Client(sb.url, ADMIN_TOKEN);
	try {
		await busyMonth(admin, total);
		const { pageSize } = (await admin.ok('GET', '/__sandbox/config/')) as { pageSize: number };
		const credentials = { baseUrl: sb.url, accessToken: API_TOKEN, accountTimeZone: ZONE };
		const calendar = { __rl: true, mode: 'id', value: CAL };
		const month = { dateRange: 'custom', startDate: '2026-11-01', endDate: '2026-11-30' };
		const freeTimes = {
			resource: 'appointment',
			operation: 'findFreeTimes',
			calendar,
			...month,
			duration: 30,
			returnAll: true,
			openingHours: { ranges: [{ day: 'everyDay', from: '08:00', to: '20:00' }] },
		};
		// What Find Free Times reads: the month padded by 30 minutes (the appointments' length) on both sides.
		const getMany = {
			resource: 'appointment',
			operation: 'getAll',
			returnAll: true,
			output: 'raw',
			dateRange: 'custom',
			startDate: '2026-10-31T23:30:00',
			endDate: '2026-12-01T00:29:59',
			filters: { calendarKey: calendar },
		};
		const queries: Record<string, string[]> = {};
		const s = await runRounds({
			contestants: ['freeTimes', 'getMany'] as const,
			rounds: ctx.smoke ? 1 : 11,
			warmups: ctx.smoke ? 0 : 2,
			order: 'alternate',
			before: async () => await clearSandboxRequests(admin),
			run: async (which) =>
				await runNode({ parameters: which === 'freeTimes' ? freeTimes : getMany, credentials }),
			after: async (which, r) => {
				if (r.error) throw new Error(`${which} failed: ${r.error.message}`);
				const reads = (await sandboxRequests(admin)).filter((q) => q.method === 'GET');
				queries[which] = reads.map((q) => JSON.stringify(q.query));
			},
		});
		const pages = Math.ceil(total / pageSize);
		const samePages = JSON.stringify(queries.freeTimes) === JSON.stringify(queries.getMany);
		const { ratio, spread } = pairedRatioSpread(s.cpuMs.freeTimes, s.cpuMs.getMany);
		const [f, g] = [median(s.cpuMs.freeTimes), median(s.cpuMs.getMany)];
		const wall = pairedRatio(s.wallMs.freeTimes, s.wallMs.getMany);
		const [fw, gw] = [median(s.wallMs.freeTimes), median(s.wallMs.getMany)];
		ctx.log(`part 10: CPU time: Find Free Times ${f.toFixed(0)} ms, Get Many ${g.toFixed(0)} ms`);
		return [
			{
				part: 10,
				name: `Find Free Times over a month, ${total} appointments, page ${pageSize}: list requests / pages needed`,
				value: queries.freeTimes.length,
				baseline: pages,
				unit: 'req.',
				ratio: round(queries.freeTimes.length / pages, 3),
				target: `= 1 (${pages} requests, the same as Get Many's)`,
				met: queries.freeTimes.length === pages && samePages,
				details: { freeTimes: queries.freeTimes, getMany: queries.getMany },
			},
			{
				part: 10,
				name: 'Find Free Times / Get Many reading the same pages, CPU time (free times computed on top)',
				value: round(f, 1),
				baseline: round(g, 1),
				unit: 'ms',
				ratio: round(ratio, 3),
				spread,
				target: '<= 1.2',
				met: ratio <= 1.2,
				details: { freeTimesCpuMs: s.cpuMs.freeTimes, getManyCpuMs: s.cpuMs.getMany },
			},
			{
				part: 10,
				name: 'Context: the same, wall time',
				value: round(fw, 1),
				baseline: round(gw, 1),
				unit: 'ms',
				ratio: round(wall, 3),
				target: '(context)',
				details: { freeTimesMs: s.wallMs.freeTimes, getManyMs: s.wallMs.getMany },
			},
		];
	} finally {
		await sb.close();
	}
}
