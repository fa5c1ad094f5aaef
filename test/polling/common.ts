/**
 * Shared set-up of the polling trigger's sandbox tests: one sandbox per test file, optionally reset before each
 * test, the service's API and admin API, and poll harnesses with the sandbox's credential.
 *
 *   const sb = usePollingSandbox({ seed, seedValue?, pageSize?, timeZone }, { resetEach? })
 *       resetEach: before each test the sandbox is reset to `seed`/`seedValue` and `pageSize` is set again
 *   sb.admin(method, path, body?)      the admin API's parsed answer
 *   sb.api(method, path, body?)        the service's API as another client; throws on a 4xx/5xx answer
 *   sb.harness(parameters, timezone?, accountTimeZone?)  startPollingHarness with the sandbox's credential
 *                                      (timezone: the sandbox's; accountTimeZone: the credential's, default none)
 *   eventNames(items)                  "<event> <appointment key>" of each item, sorted
 *   inDaysIn(zone, days, hour?)        ISO 8601 of `hour` o'clock `days` from now in `zone`
 *   watchedAppointments(sb)            the sandbox's appointments inside the default window, not cancelled
 */
import { DateTime } from 'luxon';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { SandboxOptions } from '../../sandbox';
import { startPollingHarness, type PollingHarness } from '../helpers/polling';
import {
	adminRequest,
	asJson,
	sandboxFetch,
	startTestSandbox,
	type Sandbox,
} from '../helpers/sandbox';

// eslint-disable-next-line @n8n/community-nodes/no-hardcoded-secrets -- a sandbox token made up for these tests
export const TOKEN = 'polling-test-token-7c41';
export const ADMIN = 'polling-admin-token-2b90';

/** Parsed JSON of the sandbox's answers: shapes are checked by the assertions, not by the compiler. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export interface PollingSandbox {
	readonly url: string;
	admin(method: string, path: string, body?: unknown): Promise<Json>;
	api(method: string, path: string, body?: unknown): Promise<Json>;
	harness(parameters: IDataObject, timezone?: string, accountTimeZone?: string): PollingHarness;
}

export function usePollingSandbox(
	options: Partial<SandboxOptions> & { timeZone: string },
	{ resetEach = false }: { resetEach?: boolean } = {},
): PollingSandbox {
	let sb: Sandbox | undefined;
	const url = () => {
		if (sb === undefined)
			throw new Error('the sandbox is not started yet (use it inside a test or hook)');
		return sb.url;
	};
	const ctx: PollingSandbox = {
		get url() {
			return url();
		},
		admin: async (method, path, body) => await adminRequest(url(), ADMIN, method, path, body),
		async api(method, path, body) {
			const res = await sandboxFetch(`${url()}/api/v3/${path}`, method, TOKEN, asJson(body));
			if (res.status >= 400) throw new Error(`${method} ${path} -> ${res.status} ${res.text}`);
			return res.body;
		},
		harness: (parameters, timezone = options.timeZone, accountTimeZone) =>
			startPollingHarness({
				credentials: {
					baseUrl: url(),
					accessToken: TOKEN,
					...(accountTimeZone === undefined ? {} : { accountTimeZone }),
				},
				parameters,
				timezone,
			}),
	};
	beforeAll(async () => {
		sb = await startTestSandbox({ token: TOKEN, admin: ADMIN }, options);
	});
	afterAll(async () => {
		await sb?.close();
	});
	if (resetEach) {
		beforeEach(async () => {
			await ctx.admin('POST', '/__sandbox/reset/', {
				seed: options.seed,
				seedValue: options.seedValue,
			});
			if (options.pageSize !== undefined)
				await ctx.admin('POST', '/__sandbox/config/', { pageSize: options.pageSize });
		});
	}
	return ctx;
}

export function eventNames(items: INodeExecutionData[] | undefined): string[] {
	return (items ?? [])
		.map(({ json }: Json) => `${json.event} ${json.data?.appointment_key ?? json.appointment_key}`)
		.sort();
}

export function inDaysIn(zone: string, days: number, hour = 10): string {
	return DateTime.now()
		.setZone(zone)
		.plus({ days })
		.set({ hour, minute: 0, second: 0, millisecond: 0 })
		.toISO()!;
}

/** Appointments the service lists in the default window (now - 1 day .. now + 30 days), not cancelled, an hour inside. */
export async function watchedAppointments(sb: PollingSandbox): Promise<Json[]> {
	const all: Json = await sb.admin('GET', '/__sandbox/appointments/');
	const from = Date.now() - 86_400_000 + 3_600_000;
	const to = Date.now() + 29 * 86_400_000;
	return all.appointments.filter((a: Json) => {
		const start = Date.parse(a.start_date);
		return !a.is_cancelled && start > from && start < to;
	});
}
