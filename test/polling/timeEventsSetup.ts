/**
 * Shared set-up of the time-event tests (timeEvents.test.ts, timeEventsPolls.test.ts): a sandbox in ZONE, reset
 * before each test, and a clock the test controls: luxon's Settings.now, which the trigger reads through
 * DateTime.now() (the sandbox does not read it). Every test starts at T0.
 *
 *   const t = useTimeEvents()
 *   t.setClock(ms)                                  moves the clock
 *   t.create(start, status?)                        an appointment starting at `start` (epoch ms); its key
 *   t.reschedule(key, start), t.cancel(key)
 *   t.harness(events, leadTime?, options?, timezone?)
 *   t.pollAt(h, ms)                                 moves the clock and polls once; the events emitted, sorted
 *   t.admin, t.api, t.sb                            as in common.ts
 */
import { DateTime, Settings } from 'luxon';

import type { IDataObject } from 'n8n-workflow';

import type { PollingHarness } from '../helpers/polling';
import { eventNames, usePollingSandbox, type PollingSandbox } from './common';

export const ZONE = 'Europe/Berlin';
export const SOON = 'appointment.starting_soon';
export const STARTED = 'appointment.started';
export const MIN = 60_000;
export const HOUR = 60 * MIN;
/** Far from the real date, so only the test's own appointments are in any window. */
export const T0 = Date.parse('2027-02-10T12:00:00Z');

export const iso = (ms: number) => DateTime.fromMillis(ms, { zone: ZONE }).toISO()!;

export interface TimeEvents extends Pick<PollingSandbox, 'admin' | 'api'> {
	sb: PollingSandbox;
	setClock(ms: number): void;
	create(start: number, status?: string): Promise<string>;
	reschedule(key: string, start: number): Promise<unknown>;
	cancel(key: string): Promise<unknown>;
	harness(
		events: string[],
		leadTime?: number,
		options?: IDataObject,
		timezone?: string,
	): PollingHarness;
	pollAt(h: PollingHarness, ms: number): Promise<string[]>;
}

export function useTimeEvents(): TimeEvents {
	let clock = T0;
	beforeAll(() => {
		Settings.now = () => clock;
	});
	afterAll(() => {
		Settings.now = () => Date.now();
	});
	beforeEach(() => {
		clock = T0;
	});
	const sb = usePollingSandbox({ seed: 0, pageSize: 3, timeZone: ZONE }, { resetEach: true });
	const setClock = (ms: number) => {
		clock = ms;
	};
	return {
		sb,
		admin: sb.admin,
		api: sb.api,
		setClock,
		create: async (start, status = 'CONFIRMED') =>
			(await sb.admin('POST', '/__sandbox/appointments/', { start_date: iso(start), status }))
				.appointment_key,
		reschedule: (key, start) =>
			sb.api('PATCH', `appointments/${key}/reschedule/`, { start_date: iso(start) }),
		cancel: (key) => sb.api('DELETE', `appointments/${key}/?send_email=false`),
		harness: (events, leadTime, options = {}, timezone = ZONE) =>
			sb.harness({ events, ...(leadTime === undefined ? {} : { leadTime }), options }, timezone),
		async pollAt(h, ms) {
			setClock(ms);
			const { items, error } = await h.poll();
			if (error) throw error;
			return eventNames(items);
		},
	};
}
