/**
 * The polling trigger's windows (the change events' and the reminders') as the service reads them: with the account
 * in another zone than the workflow (the credential's Account Time Zone), and with a service that reads the
 * wall-clock times its zone repeats in any way (the sandbox's dstWallClock: first pass, earlier, later, or a 400).
 * Each poll emits exactly the events of its window. The account is in America/Santiago, whose 2026-04-04 23:00-23:59
 * comes twice: 02:00-02:59Z at -03:00, then 03:00-03:59Z at -04:00.
 */
import { DateTime, Settings } from 'luxon';

import { eventNames, usePollingSandbox, type Json } from './common';

const SCL = 'America/Santiago';
const BER = 'Europe/Berlin';
const MIN = 60_000;
const HOUR = 60 * MIN;
const CHANGES = ['appointment.created', 'appointment.updated', 'appointment.canceled'];
const SOON = 'appointment.starting_soon';
const STARTED = 'appointment.started';
const LEAD = 60;

const sb = usePollingSandbox({ seed: 0, pageSize: 10, timeZone: SCL }, { resetEach: true });
let clock = 0;
beforeAll(() => {
	Settings.now = () => clock;
});
afterAll(() => {
	Settings.now = () => Date.now();
});

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

async function create(start: number, status = 'CONFIRMED'): Promise<string> {
	return (await sb.admin('POST', '/__sandbox/appointments/', { start_date: iso(start), status }))
		.appointment_key;
}

/**
 * Poll times that put an edge of some window, as one of the two set-ups below writes it, into the repeated hour:
 * the exact windows (now, now + Lead Time, now + 1 day) and the 27-hour padding of an empty Account Time Zone,
 * written on Santiago's clock or, by the code before the field existed, on Berlin's.
 */
const POLLS = [
	'2026-04-02T18:10:00Z',
	'2026-04-03T23:10:00Z',
	'2026-04-04T02:10:00Z',
	'2026-04-05T01:30:00Z',
	'2026-04-05T02:10:00Z',
	'2026-04-05T03:10:00Z',
	'2026-04-06T00:10:00Z',
	'2026-04-06T05:10:00Z',
].map(at);

/** Days Ahead 1: the same time tomorrow on the workflow's calendar (25 hours on the day Santiago's clocks go back). */
const dayAfter = (ms: number, zone: string) =>
	DateTime.fromMillis(ms, { zone }).plus({ days: 1 }).toMillis();

/** Starts a minute either side of each edge of a poll's windows, and across the repeated hour. */
function startsAround(poll: number, zone: string): number[] {
	const edges = [
		poll - 5 * MIN,
		poll,
		poll + LEAD * MIN,
		dayAfter(poll - 5 * MIN, zone),
		dayAfter(poll, zone),
	];
	const repeated = ['02:00:00', '02:20:00', '02:59:59', '03:00:00', '03:20:00', '03:59:59'].map(
		(t) => at(`2026-04-05T${t}Z`),
	);
	return [...edges.flatMap((e) => [e - MIN, e, e + MIN]), ...repeated];
}

/**
 * Activated 5 minutes before `poll`, with appointments made after that around the poll's edges: what the poll at
 * `poll` must emit, by the rules of docs/triggers.md and docs/reminders.md. Change events watch [now, now + 1 day]
 * (Days Back 0, Days Ahead 1): created is a new appointment inside the window the last poll listed and this one.
 * Starting soon: now < start <= now + Lead Time. Started: activation < start <= now.
 */
async function pollAround(
	poll: number,
	workflowZone: string,
	accountZone: string | undefined,
): Promise<void> {
	const harness = (parameters: Json) => sb.harness(parameters, workflowZone, accountZone);
	const triggers = {
		changes: harness({ events: CHANGES, options: { daysBack: 0, daysAhead: 1 } }),
		soon: harness({ events: [SOON], leadTime: LEAD }),
		started: harness({ events: [STARTED] }),
	};
	clock = poll - 5 * MIN;
	for (const trigger of Object.values(triggers)) await trigger.activate();
	const made = await Promise.all(
		startsAround(poll, workflowZone).map(async (start) => ({ start, key: await create(start) })),
	);
	const where = (event: string, inside: (start: number) => boolean) =>
		made
			.filter((a) => inside(a.start))
			.map((a) => `${event} ${a.key}`)
			.sort();
	const expected = {
		changes: where(
			'appointment.created',
			(s) => s >= poll && s <= dayAfter(poll - 5 * MIN, workflowZone),
		),
		soon: where(SOON, (s) => s > poll && s <= poll + LEAD * MIN),
		started: where(STARTED, (s) => s > poll - 5 * MIN && s <= poll),
	};
	clock = poll;
	for (const [name, trigger] of Object.entries(triggers)) {
		const { items, error } = await trigger.poll();
		expect([iso(poll), name, error?.message]).toEqual([iso(poll), name, undefined]);
		expect([iso(poll), name, eventNames(items)]).toEqual([
			iso(poll),
			name,
			expected[name as keyof typeof expected],
		]);
	}
}

describe.each([
	['a workflow in Europe/Berlin with Account Time Zone America/Santiago', BER, SCL],
	['a workflow in America/Santiago with Account Time Zone empty (padded windows)', SCL, undefined],
])('%s', (_name, workflowZone, accountZone) => {
	test.each(['zoneinfo', 'earlier', 'later', 'refuse'])(
		'a service reading repeated times as %s: every poll emits exactly the events of its windows',
		async (dstWallClock) => {
			for (const poll of POLLS) {
				await sb.admin('POST', '/__sandbox/reset/', { seed: 0 });
				await sb.admin('POST', '/__sandbox/config/', { dstWallClock, pageSize: 10 });
				await pollAround(poll, workflowZone, accountZone);
			}
		},
	);
});

describe('Fetch test event shows an appointment of the window, not of the padding around it', () => {
	const now = at('2026-06-10T12:00:00Z');
	beforeEach(() => {
		clock = now;
	});

	test('change events: none inside Days Back..Days Ahead is "none found", not one from the padding', async () => {
		await create(now - 2 * HOUR);
		await create(now + 26 * HOUR);
		const h = sb.harness({ events: CHANGES, options: { daysBack: 0, daysAhead: 1 } });
		await expect(h.manual()).rejects.toThrow('No appointment found to show as a test event');
		const inside = await create(now + 3 * HOUR);
		expect(((await h.manual())![0].json.data as Json).appointment_key).toBe(inside);
	});

	test('starting soon: the next one to start, even behind more than 200 in the padding', async () => {
		await sb.admin('POST', '/__sandbox/config/', { pageSize: 100 });
		for (let i = 0; i < 201; i++) await create(now - 26 * HOUR + i * 7 * MIN);
		const next = await create(now + 30 * MIN);
		const [item] = (await sb.harness({ events: [SOON], leadTime: LEAD }).manual())!;
		expect([item.json.event, (item.json.data as Json).appointment_key]).toEqual([SOON, next]);
	});
});

describe('Account Time Zone', () => {
	test('a value that is not a time zone fails the poll naming the field, before any request', async () => {
		clock = Date.now();
		await sb.admin('DELETE', '/__sandbox/requests/');
		const h = sb.harness({ events: CHANGES }, BER, 'Santiago');
		await expect(h.activate()).rejects.toThrow(
			'Account Time Zone "Santiago" is not an IANA time zone',
		);
		expect((await sb.admin('GET', '/__sandbox/requests/')).requests).toEqual([]);
	});
});
