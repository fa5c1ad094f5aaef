/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console, @n8n/community-nodes/require-node-api-error, @n8n/community-nodes/no-hardcoded-secrets -- made-up calendar keys; test code, never shipped: it reads the seed and the size from the environment and prints the seed */
/**
 * Model-based test of the polling trigger's state: random sequences of service changes between polls (create,
 * cancel by status or by `is_cancelled`, reschedule inside and outside the window, status change, a move to another
 * calendar, removal, a record made unusable and mended), under random Filters, answers that fail (503) or are not
 * appointments (an HTML page, `{}`, another appointment), with restarts of n8n and two polls at once, run by n8n-core's real
 * PollTriggerExecutor against a small service on loopback (test/helpers/pollingService.ts, which can remove
 * appointments and answer badly), compared after every poll with the reference model (pollModel.ts): a poll whose
 * service answered badly fails and emits nothing; any other emits exactly the model's events, once each, with
 * their `previous`.
 *
 * The seed is printed on every run; POLL_MODEL_SEED=<seed> replays it. POLL_MODEL_RUNS=<n> runs more cases
 * (default 25, a few seconds).
 */
import fc from 'fast-check';
import { DateTime, Settings } from 'luxon';
import type { INodeExecutionData } from 'n8n-workflow';

import { startPollingHarness, type PollingHarness, type PollResult } from '../helpers/polling';
import {
	POLLING_SERVICE_TOKEN,
	startPollingService,
	type FaultyAnswer,
	type PollingService,
} from '../helpers/pollingService';
import { CALENDAR } from '../helpers/pollingService';
import { DAY, HOUR, PollModel, isCancelledRecord, type ExpectedEvent } from './pollModel';

const SEED = process.env.POLL_MODEL_SEED
	? Number(process.env.POLL_MODEL_SEED)
	: Math.floor(Math.random() * 2 ** 31);
const RUNS = process.env.POLL_MODEL_RUNS ? Number(process.env.POLL_MODEL_RUNS) : 25;
const ZONE = 'America/Santiago';
const T0 = Date.parse('2027-03-10T15:00:00Z');
const CHANGE_EVENTS = [
	'appointment.created',
	'appointment.canceled',
	'appointment.updated',
	'appointment.rescheduled',
	'appointment.status_changed',
];
/** Starts inside the watched window (now - 1 day .. now + 30 days) and outside it, never in the 27 h padding. */
const INSIDE = [-12 * HOUR, 3 * HOUR, 2 * DAY, 9 * DAY + 5 * HOUR, 25 * DAY];
const OUTSIDE = [-3 * DAY, 40 * DAY, 50 * DAY];
const ACTIVE = ['CONFIRMED', 'PENDING', 'ATTENDED', 'NO_SHOW', 'PENDING_PAYMENT', 'WAITING_LIST'];
const CANCELLED = ['CANCELED', 'CANCELED_CLIENT', 'CANCELED_ADMIN'];

const OTHER = { calendar_key: '6e2d3c4b-5f60-4b7c-9d8e-0f1a2b3c4d5e', name: 'Box 2' };

type Op =
	| { kind: 'create'; start: number; status: string; other: boolean }
	| { kind: 'cancel'; pick: number; status: string }
	| { kind: 'flag'; pick: number }
	| { kind: 'reschedule'; pick: number; start: number }
	| { kind: 'status'; pick: number; status: string }
	| { kind: 'move'; pick: number; other: boolean }
	| { kind: 'remove'; pick: number }
	| { kind: 'spoil'; pick: number; field: 'status' | 'start_date' }
	| { kind: 'mend'; pick: number; start: number };
type Fault = { on: 'list' | 'read'; answer: FaultyAnswer; once: boolean } | undefined;
interface Step {
	ops: Op[];
	fault: Fault;
	restart: boolean;
	/** two polls started together (only when there is no fault and no restart) */
	overlap: boolean;
}

const anyStart = fc.constantFrom(...INSIDE, ...OUTSIDE);
const pick = fc.nat(20);
const op: fc.Arbitrary<Op> = fc.oneof(
	fc.record({
		kind: fc.constant('create' as const),
		start: anyStart,
		status: fc.constantFrom(...ACTIVE, ...ACTIVE, 'CANCELED'),
		other: fc.boolean(),
	}),
	fc.record({ kind: fc.constant('cancel' as const), pick, status: fc.constantFrom(...CANCELLED) }),
	fc.record({ kind: fc.constant('flag' as const), pick }),
	fc.record({ kind: fc.constant('reschedule' as const), pick, start: anyStart }),
	fc.record({ kind: fc.constant('status' as const), pick, status: fc.constantFrom(...ACTIVE) }),
	fc.record({ kind: fc.constant('move' as const), pick, other: fc.boolean() }),
	fc.record({ kind: fc.constant('remove' as const), pick }),
	fc.record({
		kind: fc.constant('spoil' as const),
		pick,
		field: fc.constantFrom('status' as const, 'start_date' as const),
	}),
	fc.record({ kind: fc.constant('mend' as const), pick, start: anyStart }),
);
const fault: fc.Arbitrary<Fault> = fc.oneof(
	{ weight: 3, arbitrary: fc.constant(undefined) },
	fc.record({
		on: fc.constant('list' as const),
		answer: fc.constantFrom<FaultyAnswer>('503', 'html', 'notRecord'),
		once: fc.boolean(),
	}),
	fc.record({
		on: fc.constant('read' as const),
		answer: fc.constantFrom<FaultyAnswer>('503', 'html', 'empty', 'notRecord', 'otherKey'),
		once: fc.boolean(),
	}),
);
const scenario = fc.record({
	hidesCancelled: fc.boolean(),
	ignoresDates: fc.boolean(),
	pageSize: fc.integer({ min: 2, max: 6 }),
	events: fc.subarray(CHANGE_EVENTS, { minLength: 1 }),
	calendars: fc.subarray([CALENDAR.calendar_key, OTHER.calendar_key]),
	statuses: fc.oneof(
		{ weight: 3, arbitrary: fc.constant([]) },
		fc.subarray(['CONFIRMED', 'PENDING', 'CANCELED'], { minLength: 1 }),
	),
	initial: fc.array(
		fc.record({ start: anyStart, status: fc.constantFrom(...ACTIVE, 'CANCELED') }),
		{ maxLength: 5 },
	),
	steps: fc.array(
		fc.record({
			ops: fc.array(op, { maxLength: 4 }),
			fault,
			restart: fc.boolean(),
			overlap: fc.boolean(),
		}),
		{ minLength: 1, maxLength: 6 },
	),
});

let service: PollingService;
let nextKey = 0;

beforeAll(async () => {
	service = await startPollingService({ zone: ZONE });
	Settings.now = () => T0;
	console.log(
		`polling model seed ${SEED}: replay with POLL_MODEL_SEED=${SEED} (POLL_MODEL_RUNS=${RUNS})`,
	);
});
afterAll(async () => {
	Settings.now = () => Date.now();
	await service?.close();
});

/** The service's change: the sandbox's rules (a cancelled appointment is neither rescheduled nor changed). */
function apply(o: Op): void {
	const keys = [...service.records.keys()];
	if (o.kind === 'create') {
		const record = service.add(`k${++nextKey}`, T0 + o.start, o.status);
		if (o.other) record.calendar = { ...OTHER };
		return;
	}
	if (keys.length === 0) return;
	const key = keys[o.pick % keys.length];
	const current = service.records.get(key)!;
	const spoilt = typeof current.status !== 'string' || Number.isNaN(Date.parse(current.start_date));
	if (o.kind === 'remove') service.remove(key);
	else if (o.kind === 'mend') {
		if (spoilt) service.set(key, { status: 'CONFIRMED', start: T0 + o.start });
	} else if (o.kind === 'spoil') {
		Object.assign(current, o.field === 'status' ? { status: null } : { start_date: 'soon' });
	} else if (spoilt || isCancelledRecord(current as never)) return;
	else if (o.kind === 'flag') current.is_cancelled = true;
	else if (o.kind === 'move') current.calendar = o.other ? { ...OTHER } : { ...CALENDAR };
	else if (o.kind === 'cancel' || o.kind === 'status') service.set(key, { status: o.status });
	else service.set(key, { start: T0 + o.start });
}

const snapshot = () => ({
	records: new Map([...service.records].map(([k, r]) => [k, structuredClone(r)])),
	hidesCancelled: service.options.hidesCancelled ?? false,
	ignoresDates: service.options.ignoresDates ?? false,
});

/** Each item as "<event> <key> <previous start> <previous status>", and its data checked against the model's. */
function describeItems(
	items: INodeExecutionData[] | undefined,
	expected: ExpectedEvent[],
): { got: string[]; want: string[] } {
	const line = (event: string, key: string, previous?: { start: number; status: string }) =>
		`${event} ${key}${previous ? ` ${new Date(previous.start).toISOString()} ${previous.status}` : ''}`;
	const got = (items ?? []).map(({ json }) => {
		const data = json.data as { appointment_key: string };
		const previous = json.previous as { start_date: string; status: string } | undefined;
		const want = expected.find((e) => e.event === json.event && e.key === data.appointment_key);
		if (want !== undefined) expect(data).toEqual(want.data);
		return line(
			String(json.event),
			data.appointment_key,
			previous && { start: Date.parse(previous.start_date), status: previous.status },
		);
	});
	return { got: got.sort(), want: expected.map((e) => line(e.event, e.key, e.previous)).sort() };
}

async function runStep(
	h: PollingHarness,
	model: PollModel,
	step: Step,
	history: string[],
): Promise<void> {
	for (const o of step.ops) apply(o);
	const view = snapshot();
	service.served = 0;
	service.fault = step.fault && {
		on: step.fault.on,
		answer: step.fault.answer,
		times: step.fault.once ? 1 : undefined,
	};
	let result: PollResult;
	if (step.restart) {
		model.restart();
		result = await h.restart().catch((error: Error) => ({ error }));
	} else if (step.overlap && step.fault === undefined) {
		// Two polls at once: each change once in total, whichever of the two emits it.
		const both = await Promise.all([h.poll(), h.poll()]);
		const items = both.flatMap((r) => r.items ?? []);
		result = { error: both.find((r) => r.error)?.error, items: items.length ? items : undefined };
	} else result = await h.poll();
	service.fault = undefined;
	// One 503 is retried by the transport; any other bad answer fails the poll.
	const failed = service.served > 0 && !(step.fault?.once && step.fault.answer === '503');
	history.push(
		`${JSON.stringify(step)} -> ${failed ? 'fails' : 'succeeds'}: ${result.error?.message ?? (result.items ?? []).length + ' items'}`,
	);
	if (failed) {
		expect(result.items).toBeUndefined();
		expect(result.error).toBeDefined();
		return;
	}
	if (result.error) throw result.error;
	const { got, want } = describeItems(result.items, model.poll(view, step.restart));
	expect(got).toEqual(want);
}

test(`random service changes, faults and restarts between polls: exactly the model's events, once each (seed ${SEED})`, async () => {
	await fc.assert(
		fc.asyncProperty(scenario, async (s) => {
			service.records.clear();
			service.options = {
				zone: ZONE,
				pageSize: s.pageSize,
				hidesCancelled: s.hidesCancelled,
				ignoresDates: s.ignoresDates,
			};
			service.fault = undefined;
			for (const a of s.initial) service.add(`k${++nextKey}`, T0 + a.start, a.status);
			const now = DateTime.fromMillis(T0, { zone: ZONE });
			const model = new PollModel(
				now.minus({ days: 1 }).toMillis(),
				now.plus({ days: 30 }).toMillis(),
				new Set(s.events),
				{ calendars: new Set(s.calendars), statuses: new Set(s.statuses) },
			);
			const calendar = s.calendars.map((value) => ({
				calendar: { __rl: true, mode: 'id', value },
			}));
			const filters = { calendars: { calendar }, statuses: s.statuses };
			const h = startPollingHarness({
				credentials: { baseUrl: service.url, accessToken: POLLING_SERVICE_TOKEN },
				parameters: { events: s.events, filters, options: {} },
				timezone: ZONE,
			});
			await h.activate();
			model.baseline(snapshot());
			const history: string[] = [];
			for (const step of s.steps) {
				try {
					await runStep(h, model, step, history);
				} catch (error) {
					throw new Error(
						`seed ${SEED}, after:\n${history.join('\n')}\n${(error as Error).message}`,
					);
				}
			}
		}),
		{ seed: SEED, numRuns: RUNS },
	);
}, 120_000);
