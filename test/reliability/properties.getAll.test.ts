/**
 * Property-based bad-input tests (see propertyOracle.ts): Appointment > Get Many with random values in every filter
 * of the node's filter table, date ranges and zones. The filters, their labels and parameters come from the
 * node's table; what each kind of value must become comes from the spec.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';

import {
	GET_MANY_FILTERS,
	type FilterKind,
} from '../../nodes/Appointments/actions/appointment/getAll.filters';
import {
	INVALID,
	ITEMS,
	OMIT,
	RUNS,
	batchOf,
	checkBatch,
	dateExpr,
	exact,
	open,
	openExactly,
	params,
	usePropertySandbox,
	wantOf,
	type FieldCheck,
	type ItemCase,
	type Verdict,
} from './propertyOracle';
import {
	WORKFLOW_ZONE,
	blank,
	blankDate,
	boolValue,
	boolVerdict,
	dateValue,
	isBlankDate,
	nonStrings,
	notUuidText,
	statusValue,
	statusVerdict,
	uuidValue,
	uuidVerdict,
	wallVerdict,
	zoneOf,
	zoneValue,
	type DateGen,
	type Gen,
} from './propertyValues';

// A run gives each item every filter it picked, so items with several bad ones are common and a run's share of
// valid items swings widely (3% to 35% seen over 12 runs): fewer valid ones are asked of this file alone.
usePropertySandbox(RUNS(12) * ITEMS, { valid: 1 / 100, invalid: 1 / 5, open: 1 / 50, sent: 1 / 5 });

const textValue: fc.Arbitrary<Gen> = fc.oneof(
	{
		weight: 20,
		arbitrary: fc
			.string({ minLength: 1, maxLength: 30 })
			.filter((s) => s.trim() !== '')
			.map((v) => ({ value: v, tag: 'text' })),
	},
	{
		weight: 1,
		arbitrary: fc.integer({ min: 0, max: 1e9 }).map((v) => ({ value: v, tag: 'number' })),
	},
	{ weight: 1, arbitrary: blank.map((v) => ({ value: v, tag: 'blank' })) },
	{
		weight: 1,
		arbitrary: fc
			.oneof(fc.constant({ a: 1 }), fc.constant(['x', 'y']), fc.boolean())
			.map((v) => ({ value: v, tag: 'type' })),
	},
);
function textVerdict(g: Gen): Verdict {
	if (g.tag === 'text' || g.tag === 'number') return exact(String(g.value).trim());
	if (g.tag === 'blank') return OMIT;
	if (typeof g.value === 'boolean') return open((sent) => sent === String(g.value));
	return INVALID;
}

const emailValue: fc.Arbitrary<Gen> = fc.oneof(
	{ weight: 14, arbitrary: fc.emailAddress().map((v) => ({ value: v, tag: 'email' })) },
	{
		weight: 1,
		arbitrary: fc
			.string({ minLength: 1, maxLength: 15 })
			.filter((s) => s.trim() !== '' && !s.includes('@'))
			.map((v) => ({ value: v, tag: 'partial' })),
	},
	{ weight: 1, arbitrary: blank.map((v) => ({ value: v, tag: 'blank' })) },
	{ weight: 1, arbitrary: nonStrings.map((v) => ({ value: v, tag: 'type' })) },
);
function emailVerdict(g: Gen): Verdict {
	if (g.tag === 'email') return exact(String(g.value).trim());
	if (g.tag === 'partial') return open((sent) => sent === String(g.value).trim()); // partial matching is not ruled out
	if (g.tag === 'blank') return OMIT;
	return INVALID;
}

const uuidListValue: fc.Arbitrary<Gen & { keys?: string[] }> = fc.oneof(
	{
		weight: 9,
		arbitrary: fc
			.uniqueArray(fc.uuid(), { minLength: 1, maxLength: 4 })
			.map((us) => ({ value: us, tag: 'array', keys: us })),
	},
	{
		weight: 9,
		arbitrary: fc
			.tuple(
				fc.uniqueArray(fc.uuid(), { minLength: 1, maxLength: 4 }),
				fc.constantFrom(',', ', ', ' , '),
			)
			.map(([us, sep]) => ({ value: us.join(sep), tag: 'text', keys: us })),
	},
	{ weight: 1, arbitrary: blank.map((v) => ({ value: v, tag: 'blank' })) },
	{ weight: 1, arbitrary: fc.constant({ value: [], tag: 'blank' }) },
	{
		weight: 2,
		arbitrary: fc
			.tuple(fc.uuid(), notUuidText)
			.map(([u, junk]) => ({ value: [u, junk], tag: 'junk' })),
	},
	{
		weight: 1,
		arbitrary: fc
			.tuple(
				fc.uuid(),
				notUuidText.filter((s) => !/[,\s;]/.test(s)),
			)
			.map(([u, junk]) => ({ value: `${u},${junk}`, tag: 'junk' })),
	},
	{
		weight: 1,
		arbitrary: nonStrings.filter((v) => !Array.isArray(v)).map((v) => ({ value: v, tag: 'type' })),
	},
);
function uuidListVerdict(g: Gen & { keys?: string[] }): Verdict {
	if (g.tag === 'array' || g.tag === 'text') {
		return exact(g.keys!);
	}
	if (g.tag === 'blank') return OMIT;
	return INVALID;
}

/** What the spec says about each kind of filter: the values to try, and what each must become in `zone`. */
const KINDS: Record<
	FilterKind,
	{ value: fc.Arbitrary<Gen>; verdict: (g: Gen, zone: string | undefined) => Verdict }
> = {
	uuid: { value: uuidValue(), verdict: (g) => uuidVerdict(g, false) },
	uuidList: { value: uuidListValue, verdict: uuidListVerdict },
	status: { value: statusValue, verdict: (g) => statusVerdict(g, false) },
	text: { value: textValue, verdict: textVerdict },
	email: { value: emailValue, verdict: emailVerdict },
	boolean: { value: boolValue, verdict: boolVerdict },
	datetime: {
		value: fc.oneof(dateValue, blankDate),
		verdict: (g, zone) => wallVerdict(g as DateGen, zone, 'any'),
	},
};

/** The Filters options (the Date Range fills its two rows itself), with the labels of version 3, the default. */
const FILTERS = GET_MANY_FILTERS.filter((row) => row.in === undefined).map((row) => ({
	...row,
	label: row.labelV3 ?? row.label,
}));
const [START, END] = GET_MANY_FILTERS.filter((row) => row.in === 'dateRange');

const getAllRun = fc.record({
	present: fc.record({ filters: fc.subarray(FILTERS.map((row) => row.name)), zone: fc.boolean() }),
	dateRange: fc.constantFrom('all', 'custom', 'custom', 'custom', 'today', 'next7Days'),
	limit: fc.integer({ min: 1, max: 50 }),
	items: batchOf(
		fc.record({
			filters: fc.record(
				Object.fromEntries(FILTERS.map((row) => [row.name, KINDS[row.kind].value])) as Record<
					string,
					fc.Arbitrary<Gen>
				>,
			),
			startDate: fc.oneof({ weight: 5, arbitrary: dateValue }, { weight: 1, arbitrary: blankDate }),
			endDate: fc.oneof({ weight: 5, arbitrary: dateValue }, { weight: 1, arbitrary: blankDate }),
			tz: zoneValue,
		}),
	),
});
type Run = typeof getAllRun extends fc.Arbitrary<infer R> ? R : never;

function presetBounds(preset: string, zone: string): { start: string; end: string } {
	const today = DateTime.now().setZone(zone).startOf('day');
	const end = preset === 'today' ? today : today.plus({ days: 6 });
	return {
		start: today.toFormat('yyyy-MM-dd') + 'T00:00:00',
		end: end.toFormat('yyyy-MM-dd') + 'T23:59:59',
	};
}

const HOUR = 3_600_000;

/**
 * A Date Range edge as sent without an Account Time Zone (this file's credential has none): in the item's zone, a
 * noon at least 27 h outside `v`'s (more than two zones differ, so any account's reading holds the range), and less
 * than a day past that; `slack` widens it for a run that may straddle midnight.
 */
function padded(v: Verdict, zone: string, side: 'start' | 'end', slack = 0): Verdict {
	const want = wantOf(v);
	if (want === undefined || (v.kind !== 'exact' && v.kind !== 'open')) return v;
	const at = DateTime.fromISO(want, { zone }).toMillis();
	const accept = (sent: string | string[] | undefined) => {
		if (typeof sent !== 'string' || !sent.endsWith('T12:00:00')) return false;
		const out = (DateTime.fromISO(sent, { zone }).toMillis() - at) * (side === 'start' ? -1 : 1);
		return out >= 26 * HOUR - slack && out <= 53 * HOUR + slack;
	};
	return v.kind === 'exact' ? { kind: 'sent', accept } : { ...v, accept };
}

/** The checks of the Date Range's start_date and end_date. */
function dateRangeChecks(
	run: Run,
	it: Run['items'][number],
	zone: string | undefined,
): FieldCheck[] {
	if (run.dateRange === 'custom') {
		const s = wallVerdict(it.startDate, zone, 'start');
		const e = wallVerdict(it.endDate, zone, 'end');
		if (isBlankDate(it.startDate) && isBlankDate(it.endDate)) {
			return [
				{ label: START.label, param: START.param, verdict: open((sent) => sent === undefined) },
				{ label: END.label, param: END.param, verdict: OMIT },
			];
		}
		// an end before the start selects nothing: refusing it is the node's choice (an open verdict allows it already;
		// a start the zone repeats or skips is compared by the wall clock it was given)
		const [sw, ew] = [wantOf(s), wantOf(e)];
		const reversed = sw !== undefined && ew !== undefined && sw > ew;
		return [
			{ label: START.label, param: START.param, verdict: zone ? padded(s, zone, 'start') : s },
			{
				label: END.label,
				param: END.param,
				verdict: zone
					? padded(reversed && e.kind === 'exact' ? openExactly(String(e.value)) : e, zone, 'end')
					: e,
			},
		];
	}
	if (run.dateRange === 'all' || zone === undefined) return [];
	const b = presetBounds(run.dateRange, zone);
	// (a run that straddles midnight may see the next day: accept the day before and after too)
	const near = (want: string, side: 'start' | 'end') =>
		padded({ kind: 'open', accept: () => true, want }, zone, side, 24 * HOUR);
	return [
		{ label: 'Date Range', param: START.param, verdict: near(b.start, 'start') },
		{ label: 'Date Range', param: END.param, verdict: near(b.end, 'end') },
	];
}

function itemCase(run: Run, it: Run['items'][number]): ItemCase {
	const zone = run.present.zone ? zoneOf(it.tz) : WORKFLOW_ZONE;
	const present = FILTERS.filter((row) => run.present.filters.includes(row.name));
	const fields: FieldCheck[] = present.map((row) => ({
		label: row.label,
		param: row.param,
		verdict: KINDS[row.kind].verdict(it.filters[row.name], zone),
	}));
	const usesZone =
		present.some(
			(row) => row.kind === 'datetime' && !isBlankDate(it.filters[row.name] as DateGen),
		) ||
		run.dateRange === 'today' ||
		run.dateRange === 'next7Days' ||
		(run.dateRange === 'custom' && !(isBlankDate(it.startDate) && isBlankDate(it.endDate)));
	if (run.present.zone && zone === undefined) {
		// a zone that does not exist: refused when a date needs it, harmless otherwise
		fields.push({ label: 'Time Zone', verdict: usesZone ? INVALID : open(() => true) });
	}
	fields.push(...dateRangeChecks(run, it, zone));
	const json = {
		filters: Object.fromEntries(Object.entries(it.filters).map(([k, g]) => [k, g.value])),
		startDate: it.startDate.value,
		endDate: it.endDate.value,
		tz: it.tz,
	};
	return {
		json,
		fields,
		verifyOutput: (out) => {
			// never more than the limit, never the same appointment twice
			if (out.length > run.limit)
				throw new Error(`${out.length} results for a limit of ${run.limit}`);
			const seen = new Set(out.map((o) => o.appointment_key ?? o.key));
			if (seen.size !== out.length) throw new Error('an appointment came twice');
		},
	};
}

describe('Appointment > Get Many with random filters', () => {
	it('each item: exactly the spec request, or an error naming the field; never a request for a bad item', async () => {
		await fc.assert(
			fc.asyncProperty(getAllRun, async (run) => {
				const filters: Record<string, string> = {};
				for (const row of FILTERS) {
					if (!run.present.filters.includes(row.name)) continue;
					filters[row.name] =
						row.kind === 'datetime'
							? dateExpr(`filters.${row.name}`)
							: `={{ $json.filters.${row.name} }}`;
				}
				const parameters: Record<string, unknown> = {
					resource: 'appointment',
					operation: 'getAll',
					returnAll: false,
					limit: run.limit,
					dateRange: run.dateRange,
					filters,
					output: 'simple',
					options: run.present.zone ? { timeZone: '={{ $json.tz }}' } : {},
				};
				if (run.dateRange === 'custom') {
					parameters[START.name] = dateExpr('startDate');
					parameters[END.name] = dateExpr('endDate');
				}
				const batch = run.items.map((it) => itemCase(run, it));
				await checkBatch(parameters, batch, {
					method: 'GET',
					path: () => '/api/v3/appointments/',
					extraQuery: ['page', 'page_size', 'limit', 'cursor'],
					no400: true,
				});
			}),
			{ ...params, numRuns: RUNS(12) },
		);
	});
});
