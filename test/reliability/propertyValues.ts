/**
 * The values the property tests give the node (properties.*.test.ts), each carrying what the spec says about it,
 * and the verdicts on them: UUIDs, statuses, switches, dates in many formats and zones.
 */
import fc from 'fast-check';
import { DateTime, IANAZone } from 'luxon';

import { STATUSES } from '../../sandbox';
import { INVALID, OMIT, exact, open, openExactly, type Verdict } from './propertyOracle';

const WALL = "yyyy-MM-dd'T'HH:mm:ss";
export const WORKFLOW_ZONE = 'America/Santiago';
const STATUS_VALUES: readonly string[] = STATUSES;
const ZONES = [
	'America/Santiago',
	'UTC',
	'Europe/Berlin',
	'Asia/Kathmandu',
	'Pacific/Chatham',
	'America/St_Johns',
	'Australia/Lord_Howe',
	'Pacific/Kiritimati',
	'America/Sao_Paulo',
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const sameUuid = (a: unknown, b: string) =>
	typeof a === 'string' && a.replace(/-/g, '').toLowerCase() === b.replace(/-/g, '').toLowerCase();

// ---------------------------------------------------------------------------------------------------------------
// Generators (each value carries what the spec says about it)

export interface Gen<T = unknown> {
	value: T;
	tag: string;
}

export const blank = fc.constantFrom('', ' ', '\t', '  \n');
export const junkText = fc.oneof(
	fc.string({ minLength: 1, maxLength: 20 }),
	fc.constantFrom(
		'null',
		'undefined',
		'{}',
		'[]',
		'../webhooks',
		'..',
		'.',
		'a/b',
		'%2e%2e',
		'?page=2',
		'#x',
		'ñandú',
		'🙂',
		"' OR 1=1 --",
		'<script>',
	),
);
export const notUuidText = junkText.filter(
	(s) => s.trim() !== '' && !UUID.test(s.trim()) && !/^[0-9a-f]{32}$/i.test(s.trim()),
);
export const nonStrings = fc.oneof(
	fc.integer(),
	fc.boolean(),
	fc.constant({ a: 1 }),
	fc.constant([1, 2]),
	fc.constant({}),
);

/** A UUID-typed field: valid, open (no hyphens), empty (omit), invalid text or not text at all. */
export function uuidValue(existing?: string[]): fc.Arbitrary<Gen & { key?: string }> {
	const valid = existing?.length ? fc.oneof(fc.constantFrom(...existing), fc.uuid()) : fc.uuid();
	return fc.oneof(
		{
			weight: 14,
			arbitrary: fc
				.tuple(valid, fc.constantFrom('', ' ', '\t'), fc.boolean())
				.map(([u, pad, upper]) => ({
					value: pad + (upper ? u.toUpperCase() : u) + pad,
					tag: 'uuid',
					key: u,
				})),
		},
		{
			weight: 1,
			arbitrary: valid.map((u) => ({ value: u.replace(/-/g, ''), tag: 'uuid-nohyphen', key: u })),
		},
		{ weight: 1, arbitrary: blank.map((v) => ({ value: v, tag: 'blank' })) },
		{ weight: 3, arbitrary: notUuidText.map((v) => ({ value: v, tag: 'junk' })) },
		{ weight: 1, arbitrary: nonStrings.map((v) => ({ value: v, tag: 'type' })) },
	);
}

export function uuidVerdict(g: Gen, required: boolean): Verdict {
	switch (g.tag) {
		case 'uuid':
			return exact(String(g.value).trim());
		case 'uuid-nohyphen':
			return open((sent) => sameUuid(sent, String(g.value)));
		case 'blank':
			return required ? INVALID : OMIT;
		default:
			return INVALID;
	}
}

export const statusValue: fc.Arbitrary<Gen> = fc.oneof(
	{
		weight: 15,
		arbitrary: fc.constantFrom(...STATUS_VALUES).map((v) => ({ value: v, tag: 'status' })),
	},
	{
		weight: 1,
		arbitrary: fc
			.tuple(fc.constantFrom(...STATUS_VALUES), blank)
			.map(([v, pad]) => ({ value: pad + v + pad, tag: 'status-padded' })),
	},
	{
		weight: 1,
		arbitrary: fc
			.constantFrom(...STATUS_VALUES)
			.map((v) => ({ value: v.toLowerCase(), tag: 'status-lower' })),
	},
	{
		weight: 2,
		arbitrary: junkText
			.filter((s) => !STATUS_VALUES.includes(s.trim().toUpperCase()))
			.map((v) => ({ value: v, tag: 'junk' })),
	},
	{ weight: 1, arbitrary: nonStrings.map((v) => ({ value: v, tag: 'type' })) },
);

export function statusVerdict(g: Gen, required: boolean): Verdict {
	if (g.tag === 'status' || g.tag === 'status-padded') return exact(String(g.value).trim());
	if (g.tag === 'status-lower') return open((sent) => sent === String(g.value).toUpperCase());
	if (typeof g.value === 'string' && g.value.trim() === '') return required ? INVALID : OMIT;
	return INVALID;
}

/** Dates in many formats. `instant` (ms) when the value names one; `wall` when it is wall clock without offset. */
export interface DateGen extends Gen {
	instant?: number;
	wall?: { y: number; mo: number; d: number; h: number; mi: number; s: number };
	dateOnly?: string;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const wallFields = fc.record({
	y: fc.integer({ min: 1995, max: 2055 }),
	mo: fc.integer({ min: 1, max: 12 }),
	d: fc.integer({ min: 1, max: 28 }),
	h: fc.integer({ min: 0, max: 23 }),
	mi: fc.integer({ min: 0, max: 59 }),
	s: fc.integer({ min: 0, max: 59 }),
});
const instantMs = fc
	.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2055, 0, 1) })
	.map((ms) => Math.floor(ms / 1000) * 1000);
const offsetText = fc.constantFrom(
	'Z',
	'+00:00',
	'-03:00',
	'+05:45',
	'+13:45',
	'-09:30',
	'+14:00',
	'-0300',
	'+0530',
);

export const dateValue: fc.Arbitrary<DateGen> = fc.oneof(
	{
		weight: 6,
		arbitrary: fc.tuple(instantMs, offsetText, fc.boolean()).map(([ms, off, millis]) => {
			const zone =
				off === 'Z' ? 'UTC' : `UTC${off.length === 5 ? off.slice(0, 3) + ':' + off.slice(3) : off}`;
			const dt = DateTime.fromMillis(ms, { zone });
			const text = dt.toFormat(millis ? "yyyy-MM-dd'T'HH:mm:ss.SSS" : WALL) + off;
			return { value: text, tag: 'iso-offset', instant: ms };
		}),
	},
	{
		weight: 4,
		arbitrary: instantMs.map((ms) => ({
			value: new Date(ms).toISOString(),
			tag: 'iso-z',
			instant: ms,
		})),
	},
	{
		weight: 6,
		arbitrary: wallFields.map((w) => ({
			value: `${w.y}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}`,
			tag: 'iso-local',
			wall: w,
		})),
	},
	{
		weight: 3,
		arbitrary: instantMs.map((ms) => ({
			value: { __luxon: DateTime.fromMillis(ms, { zone: 'Asia/Tokyo' }).toISO() },
			tag: 'luxon',
			instant: ms,
		})),
	},
	wallFields.map((w) => ({
		value: `${w.y}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}`,
		tag: 'iso-local-minutes',
		wall: { ...w, s: 0 },
	})),
	wallFields.map((w) => ({
		value: `${w.y}-${pad(w.mo)}-${pad(w.d)} ${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}`,
		tag: 'sql',
		wall: w,
	})),
	wallFields.map((w) => ({
		value: `${w.y}${pad(w.mo)}${pad(w.d)}T${pad(w.h)}${pad(w.mi)}${pad(w.s)}`,
		tag: 'iso-basic',
		wall: w,
	})), // ISO 8601 basic format
	wallFields.map((w) => ({
		value: `${w.y}-${pad(w.mo)}-${pad(w.d)}`,
		tag: 'date-only',
		dateOnly: `${w.y}-${pad(w.mo)}-${pad(w.d)}`,
		wall: { ...w, h: 0, mi: 0, s: 0 },
	})),
	instantMs.map((ms) => ({ value: ms, tag: 'epoch-ms', instant: ms })),
	instantMs.map((ms) => ({
		value: DateTime.fromMillis(ms, { zone: 'UTC' }).toRFC2822(),
		tag: 'rfc2822',
		instant: ms,
	})),
	fc
		.constantFrom(
			'2026-02-30',
			'2026-13-01T10:00:00',
			'2026-06-01T25:00:00',
			'2026-06-31',
			'31/12/2026',
			'tomorrow',
			'next monday',
			'not a date',
			'2026-1-1',
			'T10:00:00',
			'∞',
			'NaN',
			'0000-00-00',
		)
		.map((v) => ({ value: v, tag: 'junk-date' })),
	// whitespace alone is a blank date (the node omits it), not junk
	fc
		.string({ minLength: 1, maxLength: 12 })
		.filter((s) => !/\d{4}/.test(s) && s.trim() !== '')
		.map((v) => ({ value: v, tag: 'junk-date' })),
	fc
		.oneof(fc.boolean(), fc.constant({ a: 1 }), fc.constant([2026, 1, 1]))
		.map((v) => ({ value: v, tag: 'type-date' })),
);

export const isBlankDate = (g: DateGen) => g.tag === 'blank-date';
export const blankDate: fc.Arbitrary<DateGen> = blank.map((v) => ({ value: v, tag: 'blank-date' }));

/** Does this wall-clock time exist in `zone` (not skipped by a clock change)? */
function wallExists(w: NonNullable<DateGen['wall']>, zone: string): boolean {
	const dt = DateTime.fromObject(
		{ year: w.y, month: w.mo, day: w.d, hour: w.h, minute: w.mi, second: w.s },
		{ zone },
	);
	return dt.isValid && dt.hour === w.h && dt.minute === w.mi && dt.day === w.d;
}
const wallText = (w: NonNullable<DateGen['wall']>) =>
	`${w.y}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}`;

/** A datetime filter: local wall clock `YYYY-MM-DDTHH:mm:ss` in `zone` (the spec's form). */
/** The instants a wall-clock text can mean in `zone`: `real` those whose wall clock it is, `all` with the zone's offsets of that day. */
function readingsOf(text: string, zone: string): { real: number[]; all: number[] } {
	const naive = DateTime.fromISO(text, { zone: 'UTC' }).toMillis();
	const z = IANAZone.create(zone);
	const offsets = new Set([-1, 0, 1].map((d) => z.offset(naive + d * 86_400_000)));
	const all = [...offsets].map((o) => naive - o * 60_000);
	const real = all.filter((t) => DateTime.fromMillis(t, { zone }).toFormat(WALL) === text);
	return { real, all };
}

/**
 * An edge of the window, due as `text`. A wall clock the zone repeats or skips would be read differently by each
 * service (or refused), so the node moves it outward to one that exists once: at most 3 hours away, never inward.
 */
function edge(text: string, zone: string, bound: 'start' | 'end' | 'any'): Verdict {
	const due = readingsOf(text, zone);
	const lo = Math.min(...(due.real.length > 1 ? due.real : due.all));
	const hi = Math.max(...(due.real.length > 1 ? due.real : due.all));
	const HOURS_3 = 3 * 3_600_000;
	const accept = (sent: string | string[] | undefined) => {
		if (typeof sent !== 'string') return false;
		const got = readingsOf(sent, zone).real;
		if (got.length !== 1) return false;
		if (due.real.length === 0) return got[0] >= lo && got[0] <= hi; // skipped: the change's instant
		return bound === 'end'
			? got[0] >= hi && got[0] <= hi + HOURS_3
			: got[0] <= lo && got[0] >= lo - HOURS_3;
	};
	// `want`: the wall clock due, so that a window's bounds can still be compared (a reversed range)
	return { kind: 'open', accept, want: text };
}

export function wallVerdict(
	g: DateGen,
	zone: string | undefined,
	bound: 'start' | 'end' | 'any',
): Verdict {
	if (zone === undefined) return g.tag === 'blank-date' ? OMIT : { kind: 'invalid' }; // an invalid zone
	const verdict = wallVerdictAsText(g, zone, bound);
	const text =
		verdict.kind === 'exact' ? verdict.value : verdict.kind === 'open' ? verdict.want : undefined;
	if (typeof text !== 'string' || readingsOf(text, zone).real.length === 1) return verdict;
	return edge(text, zone, bound);
}

function wallVerdictAsText(g: DateGen, zone: string, bound: 'start' | 'end' | 'any'): Verdict {
	const inZone = (ms: number) => DateTime.fromMillis(ms, { zone }).toFormat(WALL);
	switch (g.tag) {
		case 'iso-offset':
		case 'iso-z':
		case 'luxon':
			return exact(inZone(g.instant!));
		case 'epoch-ms':
		case 'rfc2822':
			return openExactly(inZone(g.instant!));
		case 'iso-local':
		case 'iso-local-minutes':
			return wallExists(g.wall!, zone) ? exact(wallText(g.wall!)) : openExactly(wallText(g.wall!));
		case 'sql':
		case 'iso-basic':
			return openExactly(wallText(g.wall!));
		case 'date-only':
			if (bound === 'start') return exact(`${g.dateOnly}T00:00:00`);
			if (bound === 'end') return exact(`${g.dateOnly}T23:59:59`);
			return open((sent) => typeof sent === 'string' && sent.startsWith(`${g.dateOnly}T`));
		case 'blank-date':
			return OMIT;
		default:
			return INVALID;
	}
}

/** A datetime with offset (reschedule): the instant the user meant, or the item fails. */
export function instantOf(
	g: DateGen,
	zone: string,
): number | undefined | 'invalid' | 'open-midnight' {
	switch (g.tag) {
		case 'iso-offset':
		case 'iso-z':
		case 'luxon':
		case 'epoch-ms':
		case 'rfc2822':
			return g.instant;
		case 'iso-local':
		case 'iso-local-minutes':
		case 'sql':
		case 'iso-basic':
			if (!wallExists(g.wall!, zone)) return 'invalid';
			return DateTime.fromObject(
				{
					year: g.wall!.y,
					month: g.wall!.mo,
					day: g.wall!.d,
					hour: g.wall!.h,
					minute: g.wall!.mi,
					second: g.wall!.s,
				},
				{ zone },
			).toMillis();
		case 'date-only':
			return 'open-midnight';
		default:
			return 'invalid';
	}
}

export const zoneValue = fc.oneof(
	{ weight: 3, arbitrary: fc.constantFrom(...ZONES) },
	{ weight: 1, arbitrary: fc.constant('') },
	{
		weight: 1,
		arbitrary: fc.constantFrom(
			'Mars/Olympus_Mons',
			'GMT+25',
			'Santiago',
			'america/nowhere',
			'+03:00',
		),
	},
);
export const zoneOf = (tz: string): string | undefined =>
	tz === '' ? WORKFLOW_ZONE : DateTime.local().setZone(tz).isValid ? tz : undefined;

export const boolValue: fc.Arbitrary<Gen> = fc.oneof(
	{ weight: 14, arbitrary: fc.boolean().map((v) => ({ value: v, tag: 'bool' })) },
	{
		weight: 1,
		arbitrary: fc
			.constantFrom('true', 'false', 'TRUE', ' false ')
			.map((v) => ({ value: v, tag: 'bool-text' })),
	},
	{
		weight: 1,
		arbitrary: fc
			.constantFrom('yes', 'no', 1, 0, 'on', 'maybe', { a: 1 })
			.map((v) => ({ value: v, tag: 'junk' })),
	},
);
export function boolVerdict(g: Gen): Verdict {
	if (g.tag === 'bool') return exact(String(g.value));
	if (g.tag === 'bool-text') return open((sent) => sent === String(g.value).trim().toLowerCase());
	if (g.value === 1 || g.value === 0) return open((sent) => sent === String(g.value === 1));
	return INVALID;
}
