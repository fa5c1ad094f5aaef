/* eslint-disable @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any -- test code, never shipped: it reads the environment (sizes, seed) and handles arbitrary JSON */
/**
 * Property-based bad-input tests of the real action node (fast-check): random parameters per item (keys, statuses,
 * dates in many formats and zones, URLs, event lists, filters), 100 items per node execution with
 * continue-on-fail, each item's parameters coming from its own JSON through expressions, as in a real workflow.
 *
 * For every item, an oracle written from the spec (not from the node's code) says whether the input is
 *   - valid: the node must send exactly the request the spec allows (method, path, query from the sandbox's log)
 *     and must not fail the item before sending;
 *   - invalid: the item must fail with an error naming the field and the item, and no request may be sent for it;
 *   - open (the spec leaves it to the node, e.g. an un-hyphenated UUID, an RFC 2822 date): either of the two,
 *     but a request must still be exactly right and an error must still name the field.
 * Never an unhandled exception: the run itself must not fail, and every error item must be one of the above.
 * Cases per run: >= 2,000 under `npm test`, more under `npm run test:chaos`. fast-check prints the seed and the
 * shrunk counterexample on failure; re-run one with FC_SEED=<seed>.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../helpers/n8n';
import { FULL, TestSandbox, TOKEN, type RequestLogEntry } from './common';

const ITEMS = 100;
const RUNS = (n: number) => (FULL ? n * 4 : n);
// Four times the runs: on a loaded 2-core machine one property took close to the default minute.
if (FULL) jest.setTimeout(300_000);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const WALL = "yyyy-MM-dd'T'HH:mm:ss";
const WORKFLOW_ZONE = 'America/Santiago';
const STATUS_VALUES = ['CONFIRMED', 'PENDING', 'ATTENDED', 'IN_PROGRESS', 'NO_SHOW', 'CANCELED', 'CANCELED_CLIENT', 'CANCELED_GOOGLE', 'PENDING_PAYMENT', 'PENDING_FORM', 'PENDING_COMPANIONS'];
const KNOWN_EVENTS = ['appointment.created', 'appointment.canceled', 'appointment.updated'];
const ZONES = ['America/Santiago', 'UTC', 'Europe/Berlin', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/St_Johns', 'Australia/Lord_Howe', 'Pacific/Kiritimati', 'America/Sao_Paulo'];

let sb: TestSandbox;
let keys: string[] = [];
let cases = 0;
/** How many items of each kind the runs produced, and how many requests the valid ones sent. */
const tally = { valid: 0, invalid: 0, open: 0, sent: 0 };

beforeAll(async () => {
	sb = await TestSandbox.start({ seed: 50, seedValue: 21 });
	keys = (await sb.allAppointments()).map((a) => a.appointment_key);
});

afterAll(async () => {
	await sb?.close();
	// every run checked its items: the suite really did look at this many cases
	expect(cases).toBeGreaterThanOrEqual(2000);
	// the generators produce every kind in useful numbers (a generator that only made junk would prove little)
	expect(tally.valid).toBeGreaterThan(cases / 4);
	expect(tally.invalid).toBeGreaterThan(cases / 5);
	expect(tally.open).toBeGreaterThan(cases / 50);
	expect(tally.sent).toBeGreaterThan(cases / 4);
});

// ---------------------------------------------------------------------------------------------------------------
// The oracle's vocabulary

/** What the spec says about one field of one item. */
type Verdict =
	| { kind: 'omit' } // nothing to send for this field
	| { kind: 'exact'; value: string | string[] } // must be sent exactly so
	| { kind: 'invalid' } // the item must fail naming this field
	| { kind: 'open'; accept: (sent: string | string[] | undefined) => boolean; want?: string }; // either fail naming it, or send something accepted

interface FieldCheck {
	label: string; // the field's name as the user sees it
	param?: string; // the query parameter it becomes (getAll)
	verdict: Verdict;
}

const exact = (value: string | string[]): Verdict => ({ kind: 'exact', value });
const open = (accept: (sent: string | string[] | undefined) => boolean): Verdict => ({ kind: 'open', accept });
/** Open, and when sent it must be exactly `want`. */
const openExactly = (want: string): Verdict => ({ kind: 'open', accept: (sent) => sent === want, want });
/** The value a date verdict stands for, if it stands for one. */
const wantOf = (v: Verdict): string | undefined => (v.kind === 'exact' ? String(v.value) : v.kind === 'open' ? v.want : undefined);
const INVALID: Verdict = { kind: 'invalid' };
const OMIT: Verdict = { kind: 'omit' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const sameUuid = (a: unknown, b: string) => typeof a === 'string' && a.replace(/-/g, '').toLowerCase() === b.replace(/-/g, '').toLowerCase();

// ---------------------------------------------------------------------------------------------------------------
// Generators (each value carries what the spec says about it)

interface Gen<T = unknown> {
	value: T;
	tag: string;
}

const blank = fc.constantFrom('', ' ', '\t', '  \n');
const junkText = fc.oneof(
	fc.string({ minLength: 1, maxLength: 20 }),
	fc.constantFrom('null', 'undefined', '{}', '[]', '../webhooks', '..', '.', 'a/b', '%2e%2e', '?page=2', '#x', 'ñandú', '🙂', "' OR 1=1 --", '<script>'),
);
const notUuidText = junkText.filter((s) => s.trim() !== '' && !UUID.test(s.trim()) && !/^[0-9a-f]{32}$/i.test(s.trim()));
const nonStrings = fc.oneof(fc.integer(), fc.boolean(), fc.constant({ a: 1 }), fc.constant([1, 2]), fc.constant({}));

/** A UUID-typed field: valid, open (no hyphens), empty (omit), invalid text or not text at all. */
function uuidValue(existing?: string[]): fc.Arbitrary<Gen & { key?: string }> {
	const valid = existing?.length ? fc.oneof(fc.constantFrom(...existing), fc.uuid()) : fc.uuid();
	return fc.oneof(
		{ weight: 14, arbitrary: fc.tuple(valid, fc.constantFrom('', ' ', '\t'), fc.boolean()).map(([u, pad, upper]) => ({ value: pad + (upper ? u.toUpperCase() : u) + pad, tag: 'uuid', key: u })) },
		{ weight: 1, arbitrary: valid.map((u) => ({ value: u.replace(/-/g, ''), tag: 'uuid-nohyphen', key: u })) },
		{ weight: 1, arbitrary: blank.map((v) => ({ value: v, tag: 'blank' })) },
		{ weight: 3, arbitrary: notUuidText.map((v) => ({ value: v, tag: 'junk' })) },
		{ weight: 1, arbitrary: nonStrings.map((v) => ({ value: v, tag: 'type' })) },
	);
}

function uuidVerdict(g: Gen, required: boolean): Verdict {
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

const statusValue: fc.Arbitrary<Gen> = fc.oneof(
	{ weight: 15, arbitrary: fc.constantFrom(...STATUS_VALUES).map((v) => ({ value: v, tag: 'status' })) },
	{ weight: 1, arbitrary: fc.tuple(fc.constantFrom(...STATUS_VALUES), blank).map(([v, pad]) => ({ value: pad + v + pad, tag: 'status-padded' })) },
	{ weight: 1, arbitrary: fc.constantFrom(...STATUS_VALUES).map((v) => ({ value: v.toLowerCase(), tag: 'status-lower' })) },
	{ weight: 2, arbitrary: junkText.filter((s) => !STATUS_VALUES.includes(s.trim().toUpperCase())).map((v) => ({ value: v, tag: 'junk' })) },
	{ weight: 1, arbitrary: nonStrings.map((v) => ({ value: v, tag: 'type' })) },
);

function statusVerdict(g: Gen, required: boolean): Verdict {
	if (g.tag === 'status' || g.tag === 'status-padded') return exact(String(g.value).trim());
	if (g.tag === 'status-lower') return open((sent) => sent === String(g.value).toUpperCase());
	if (typeof g.value === 'string' && g.value.trim() === '') return required ? INVALID : OMIT;
	return INVALID;
}

/** Dates in many formats. `instant` (ms) when the value names one; `wall` when it is wall clock without offset. */
interface DateGen extends Gen {
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
const instantMs = fc.integer({ min: Date.UTC(1995, 0, 1), max: Date.UTC(2055, 0, 1) }).map((ms) => Math.floor(ms / 1000) * 1000);
const offsetText = fc.constantFrom('Z', '+00:00', '-03:00', '+05:45', '+13:45', '-09:30', '+14:00', '-0300', '+0530');

const dateValue: fc.Arbitrary<DateGen> = fc.oneof(
	{ weight: 6, arbitrary: fc.tuple(instantMs, offsetText, fc.boolean()).map(([ms, off, millis]) => {
		const zone = off === 'Z' ? 'UTC' : `UTC${off.length === 5 ? off.slice(0, 3) + ':' + off.slice(3) : off}`;
		const dt = DateTime.fromMillis(ms, { zone });
		const text = dt.toFormat(millis ? "yyyy-MM-dd'T'HH:mm:ss.SSS" : WALL) + off;
		return { value: text, tag: 'iso-offset', instant: ms };
	}) },
	{ weight: 4, arbitrary: instantMs.map((ms) => ({ value: new Date(ms).toISOString(), tag: 'iso-z', instant: ms })) },
	{ weight: 6, arbitrary: wallFields.map((w) => ({ value: `${w.y}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}`, tag: 'iso-local', wall: w })) },
	{ weight: 3, arbitrary: instantMs.map((ms) => ({ value: { __luxon: DateTime.fromMillis(ms, { zone: 'Asia/Tokyo' }).toISO() }, tag: 'luxon', instant: ms })) },
	wallFields.map((w) => ({ value: `${w.y}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}`, tag: 'iso-local-minutes', wall: { ...w, s: 0 } })),
	wallFields.map((w) => ({ value: `${w.y}-${pad(w.mo)}-${pad(w.d)} ${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}`, tag: 'sql', wall: w })),
	wallFields.map((w) => ({ value: `${w.y}${pad(w.mo)}${pad(w.d)}T${pad(w.h)}${pad(w.mi)}${pad(w.s)}`, tag: 'iso-basic', wall: w })), // ISO 8601 basic format
	wallFields.map((w) => ({ value: `${w.y}-${pad(w.mo)}-${pad(w.d)}`, tag: 'date-only', dateOnly: `${w.y}-${pad(w.mo)}-${pad(w.d)}`, wall: { ...w, h: 0, mi: 0, s: 0 } })),
	instantMs.map((ms) => ({ value: ms, tag: 'epoch-ms', instant: ms })),
	instantMs.map((ms) => ({ value: DateTime.fromMillis(ms, { zone: 'UTC' }).toRFC2822(), tag: 'rfc2822', instant: ms })),
	fc
		.constantFrom('2026-02-30', '2026-13-01T10:00:00', '2026-06-01T25:00:00', '2026-06-31', '31/12/2026', 'tomorrow', 'next monday', 'not a date', '2026-1-1', 'T10:00:00', '∞', 'NaN', '0000-00-00')
		.map((v) => ({ value: v, tag: 'junk-date' })),
	// whitespace alone is a blank date (the node omits it), not junk
	fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !/\d{4}/.test(s) && s.trim() !== '').map((v) => ({ value: v, tag: 'junk-date' })),
	fc.oneof(fc.boolean(), fc.constant({ a: 1 }), fc.constant([2026, 1, 1])).map((v) => ({ value: v, tag: 'type-date' })),
);

const isBlankDate = (g: DateGen) => g.tag === 'blank-date';
const blankDate: fc.Arbitrary<DateGen> = blank.map((v) => ({ value: v, tag: 'blank-date' }));

/** Does this wall-clock time exist in `zone` (not skipped by a clock change)? */
function wallExists(w: NonNullable<DateGen['wall']>, zone: string): boolean {
	const dt = DateTime.fromObject({ year: w.y, month: w.mo, day: w.d, hour: w.h, minute: w.mi, second: w.s }, { zone });
	return dt.isValid && dt.hour === w.h && dt.minute === w.mi && dt.day === w.d;
}
const wallText = (w: NonNullable<DateGen['wall']>) => `${w.y}-${pad(w.mo)}-${pad(w.d)}T${pad(w.h)}:${pad(w.mi)}:${pad(w.s)}`;

/** A datetime filter: local wall clock `YYYY-MM-DDTHH:mm:ss` in `zone` (the spec's form). */
function wallVerdict(g: DateGen, zone: string | undefined, bound: 'start' | 'end' | 'any'): Verdict {
	if (zone === undefined) return g.tag === 'blank-date' ? OMIT : { kind: 'invalid' }; // an invalid zone
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
function instantOf(g: DateGen, zone: string): number | undefined | 'invalid' | 'open-midnight' {
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
			return DateTime.fromObject({ year: g.wall!.y, month: g.wall!.mo, day: g.wall!.d, hour: g.wall!.h, minute: g.wall!.mi, second: g.wall!.s }, { zone }).toMillis();
		case 'date-only':
			return 'open-midnight';
		default:
			return 'invalid';
	}
}

const zoneValue = fc.oneof(
	{ weight: 3, arbitrary: fc.constantFrom(...ZONES) },
	{ weight: 1, arbitrary: fc.constant('') },
	{ weight: 1, arbitrary: fc.constantFrom('Mars/Olympus_Mons', 'GMT+25', 'Santiago', 'america/nowhere', '+03:00') },
);
const zoneOf = (tz: string): string | undefined => (tz === '' ? WORKFLOW_ZONE : DateTime.local().setZone(tz).isValid ? tz : undefined);

// ---------------------------------------------------------------------------------------------------------------
// Running a batch and checking every item

interface ItemCase {
	json: Record<string, unknown>;
	fields: FieldCheck[];
	/** Checks an item's output when its request succeeded (after the oracle's request check). */
	verifyOutput?: (output: Array<Record<string, any>>) => void;
}

interface Expected {
	method: string;
	path: (c: ItemCase) => string | ((path: string) => boolean);
	/** Query params the spec allows besides the checked fields (pagination). */
	extraQuery?: string[];
	/** How many requests one valid item sends (default 1). */
	requestsPerItem?: number;
	/** A GET of this path comes before the checked request (webhook create and delete read the list first). */
	listFirst?: string;
	/** API failures that are fine for a valid item (e.g. 404 for a well-formed key nobody has). */
	apiErrorAllowed?: (message: string) => boolean;
	/** The service must accept every request the node sends (a 400 means the node sent something malformed). */
	no400?: boolean;
}

function classify(c: ItemCase): 'valid' | 'invalid' | 'open' {
	if (c.fields.some((f) => f.verdict.kind === 'invalid')) return 'invalid';
	if (c.fields.some((f) => f.verdict.kind === 'open')) return 'open';
	return 'valid';
}

function namesField(message: string, labels: string[], index: number): boolean {
	// "Events" and "Other Events" are one list to the user: an error may name either
	const names = labels.includes('Events') ? [...labels, 'Other Events'] : labels;
	return names.some((label) => message.includes(`"${label}"`)) && message.includes(`item ${index}`);
}

const asList = (v: string | string[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);

function queryMatches(c: ItemCase, query: Record<string, string | string[]>, extra: string[]): string | undefined {
	const checked = new Set<string>();
	for (const f of c.fields) {
		if (!f.param) continue;
		checked.add(f.param);
		const sent = query[f.param];
		const v = f.verdict;
		if (v.kind === 'omit' && sent !== undefined) return `${f.param} sent (${JSON.stringify(sent)}) though empty`;
		if (v.kind === 'exact' && JSON.stringify(asList(sent)) !== JSON.stringify(asList(v.value))) return `${f.param}: sent ${JSON.stringify(sent)}, expected ${JSON.stringify(v.value)}`;
		if (v.kind === 'open' && !v.accept(sent)) return `${f.param}: sent ${JSON.stringify(sent)}, not acceptable`;
	}
	for (const name of Object.keys(query)) {
		if (!checked.has(name) && !extra.includes(name)) return `unexpected query parameter ${name}=${JSON.stringify(query[name])}`;
	}
	return undefined;
}

async function checkBatch(parameters: Record<string, unknown>, batch: ItemCase[], expected: Expected): Promise<void> {
	await sb.clearRequests();
	const result = await runNode({
		parameters: parameters as IDataObject,
		credentials: { baseUrl: sb.url, accessToken: TOKEN },
		input: batch.map((c) => c.json as IDataObject),
		continueOnFail: true,
	});
	// never an unhandled exception: the run itself does not fail
	if (result.error) throw new Error(`the node run failed instead of failing items: ${result.error.message}`);
	const outputs = new Map<number, Array<Record<string, any>>>();
	for (const item of result.items[0] ?? []) {
		const paired = item.pairedItem as { item: number } | Array<{ item: number }>;
		const index = Array.isArray(paired) ? paired[0].item : paired.item;
		outputs.set(index, [...(outputs.get(index) ?? []), item.json as Record<string, any>]);
	}
	const log: RequestLogEntry[] = await sb.requests();
	let cursor = 0;
	const first = expected.listFirst ? 1 : 0;
	const per = (expected.requestsPerItem ?? 1) + first;
	for (let i = 0; i < batch.length; i++) {
		const c = batch[i];
		const kind = classify(c);
		tally[kind]++;
		const out = outputs.get(i) ?? [];
		const error = out.length === 1 && typeof out[0].error === 'string' && Object.keys(out[0]).length <= 2 ? String(out[0].error) : undefined;
		const where = `item ${i} ${JSON.stringify(c.json).slice(0, 4000)}`;
		// a refusal may name any field that is invalid, or open (the node may refuse those too)
		const flagged = c.fields.filter((f) => f.verdict.kind === 'invalid' || f.verdict.kind === 'open').map((f) => f.label);
		const failedBeforeSending = error !== undefined && /^The field "|^The option "/.test(error);
		if (kind === 'invalid' || (kind === 'open' && failedBeforeSending)) {
			if (!error) throw new Error(`${where}: expected an error naming ${flagged.join(' or ')}, got output ${JSON.stringify(out).slice(0, 300)}`);
			if (!namesField(error, flagged, i)) throw new Error(`${where}: the error does not name ${flagged.join(' or ')} and item ${i}: ${error}`);
			continue; // and no request: checked by the log walk below (every request belongs to a sent item)
		}
		if (failedBeforeSending) throw new Error(`${where}: valid input refused: ${error}`);
		// a request must be next in the log, exactly as the spec allows
		const mine = log.slice(cursor, cursor + per);
		cursor += per;
		if (mine.length < per) throw new Error(`${where}: no request was sent (error: ${error ?? 'none'})`);
		if (expected.listFirst && (mine[0].method !== 'GET' || mine[0].path !== expected.listFirst)) {
			throw new Error(`${where}: sent ${mine[0].method} ${mine[0].path} first, expected GET ${expected.listFirst}`);
		}
		for (const request of mine.slice(first, first + 1)) {
			const path = expected.path(c);
			const pathOk = typeof path === 'string' ? request.path === path : path(request.path);
			if (request.method !== expected.method || !pathOk) throw new Error(`${where}: sent ${request.method} ${request.path}, expected ${expected.method} ${typeof path === 'string' ? path : '(pattern)'}`);
			const bad = queryMatches(c, request.query ?? {}, expected.extraQuery ?? []);
			if (bad) throw new Error(`${where}: ${bad}`);
			if (expected.no400 && request.status === 400) throw new Error(`${where}: the service refused what the node sent (400)`);
		}
		if (error !== undefined) {
			if (!expected.apiErrorAllowed?.(error)) throw new Error(`${where}: the request failed: ${error}`);
		} else {
			c.verifyOutput?.(out);
		}
	}
	if (cursor !== log.length) {
		throw new Error(`${log.length - cursor} request(s) the valid items do not account for: ${JSON.stringify(log.slice(cursor, cursor + 3))}`);
	}
	cases += batch.length;
	tally.sent += log.length;
}

const batchOf = <T>(arb: fc.Arbitrary<T>) => fc.array(arb, { minLength: ITEMS, maxLength: ITEMS });
/** Short failure reports: the seed, the path to replay and the first failing item (not the whole 100-item batch). */
function report(details: fc.RunDetails<any>): void {
	if (!details.failed) return;
	const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
	throw new Error(`Property failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}"; replay with FC_SEED=${details.seed}):\n${cause}`);
}
const params = { numRuns: 0, seed: SEED, endOnFailure: true, asyncReporter: async (d: fc.RunDetails<any>) => report(d) } as const;

// ---------------------------------------------------------------------------------------------------------------
// Appointment > Get Many: every filter, date ranges, zones

const TEXT_FILTERS: Array<[string, string, string]> = [
	['phone', 'phone', 'Phone'],
	['name', 'name', 'Name'],
	['identificationCode', 'identification_code', 'Identification Code'],
	['externalId', 'external_id', 'External ID'],
	['searchCode', 'search_code', 'Search Code'],
	['ownerUser', 'owner_user', 'Owner User'],
];
const KEY_FILTERS: Array<[string, string, string]> = [
	['calendarKey', 'calendar_key', 'Calendar'],
	['clientKey', 'client_key', 'Client Key'],
	['personKey', 'person_key', 'Person Key'],
];
const LIST_FILTERS: Array<[string, string, string]> = [
	['serviceKeys', 'service_keys', 'Service Keys'],
	['tagKeys', 'tag_keys', 'Tag Keys'],
];

const textValue: fc.Arbitrary<Gen> = fc.oneof(
	{ weight: 20, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== '').map((v) => ({ value: v, tag: 'text' })) },
	{ weight: 1, arbitrary: fc.integer({ min: 0, max: 1e9 }).map((v) => ({ value: v, tag: 'number' })) },
	{ weight: 1, arbitrary: blank.map((v) => ({ value: v, tag: 'blank' })) },
	{ weight: 1, arbitrary: fc.oneof(fc.constant({ a: 1 }), fc.constant(['x', 'y']), fc.boolean()).map((v) => ({ value: v, tag: 'type' })) },
);
function textVerdict(g: Gen): Verdict {
	if (g.tag === 'text' || g.tag === 'number') return exact(String(g.value).trim());
	if (g.tag === 'blank') return OMIT;
	if (typeof g.value === 'boolean') return open((sent) => sent === String(g.value));
	return INVALID;
}

const emailValue: fc.Arbitrary<Gen> = fc.oneof(
	{ weight: 14, arbitrary: fc.emailAddress().map((v) => ({ value: v, tag: 'email' })) },
	{ weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 15 }).filter((s) => s.trim() !== '' && !s.includes('@')).map((v) => ({ value: v, tag: 'partial' })) },
	{ weight: 1, arbitrary: blank.map((v) => ({ value: v, tag: 'blank' })) },
	{ weight: 1, arbitrary: nonStrings.map((v) => ({ value: v, tag: 'type' })) },
);
function emailVerdict(g: Gen): Verdict {
	if (g.tag === 'email') return exact(String(g.value).trim());
	if (g.tag === 'partial') return open((sent) => sent === String(g.value).trim()); // partial matching is not ruled out
	if (g.tag === 'blank') return OMIT;
	return INVALID;
}

const boolValue: fc.Arbitrary<Gen> = fc.oneof(
	{ weight: 14, arbitrary: fc.boolean().map((v) => ({ value: v, tag: 'bool' })) },
	{ weight: 1, arbitrary: fc.constantFrom('true', 'false', 'TRUE', ' false ').map((v) => ({ value: v, tag: 'bool-text' })) },
	{ weight: 1, arbitrary: fc.constantFrom('yes', 'no', 1, 0, 'on', 'maybe', { a: 1 }).map((v) => ({ value: v, tag: 'junk' })) },
);
function boolVerdict(g: Gen): Verdict {
	if (g.tag === 'bool') return exact(String(g.value));
	if (g.tag === 'bool-text') return open((sent) => sent === String(g.value).trim().toLowerCase());
	if (g.value === 1 || g.value === 0) return open((sent) => sent === String(g.value === 1));
	return INVALID;
}

const uuidListValue: fc.Arbitrary<Gen & { keys?: string[] }> = fc.oneof(
	{ weight: 9, arbitrary: fc.uniqueArray(fc.uuid(), { minLength: 1, maxLength: 4 }).map((us) => ({ value: us, tag: 'array', keys: us })) },
	{ weight: 9, arbitrary: fc.tuple(fc.uniqueArray(fc.uuid(), { minLength: 1, maxLength: 4 }), fc.constantFrom(',', ', ', ' , ')).map(([us, sep]) => ({ value: us.join(sep), tag: 'text', keys: us })) },
	{ weight: 1, arbitrary: blank.map((v) => ({ value: v, tag: 'blank' })) },
	{ weight: 1, arbitrary: fc.constant({ value: [], tag: 'blank' }) },
	{ weight: 2, arbitrary: fc.tuple(fc.uuid(), notUuidText).map(([u, junk]) => ({ value: [u, junk], tag: 'junk' })) },
	{ weight: 1, arbitrary: fc.tuple(fc.uuid(), notUuidText.filter((s) => !/[,\s;]/.test(s))).map(([u, junk]) => ({ value: `${u},${junk}`, tag: 'junk' })) },
	{ weight: 1, arbitrary: nonStrings.filter((v) => !Array.isArray(v)).map((v) => ({ value: v, tag: 'type' })) },
);
function uuidListVerdict(g: Gen & { keys?: string[] }): Verdict {
	if (g.tag === 'array' || g.tag === 'text') {
		return exact(g.keys!);
	}
	if (g.tag === 'blank') return OMIT;
	return INVALID;
}

const getAllRun = fc.record({
	present: fc.record({
		keys: fc.subarray(KEY_FILTERS.map((k) => k[0])),
		texts: fc.subarray(TEXT_FILTERS.map((k) => k[0])),
		lists: fc.subarray(LIST_FILTERS.map((k) => k[0])),
		status: fc.boolean(),
		email: fc.boolean(),
		isCancelled: fc.boolean(),
		createdAt: fc.boolean(),
		zone: fc.boolean(),
	}),
	dateRange: fc.constantFrom('all', 'custom', 'custom', 'custom', 'today', 'next7Days'),
	limit: fc.integer({ min: 1, max: 50 }),
	items: batchOf(
		fc.record({
			keys: fc.record({ calendarKey: uuidValue(), clientKey: uuidValue(), personKey: uuidValue() }),
			texts: fc.record(Object.fromEntries(TEXT_FILTERS.map(([f]) => [f, textValue])) as Record<string, fc.Arbitrary<Gen>>),
			lists: fc.record({ serviceKeys: uuidListValue, tagKeys: uuidListValue }),
			status: statusValue,
			email: emailValue,
			isCancelled: boolValue,
			createdAt: fc.oneof(dateValue, blankDate),
			startDate: fc.oneof({ weight: 5, arbitrary: dateValue }, { weight: 1, arbitrary: blankDate }),
			endDate: fc.oneof({ weight: 5, arbitrary: dateValue }, { weight: 1, arbitrary: blankDate }),
			tz: zoneValue,
		}),
	),
});

/** An expression that hands the item's value to the node; `{__luxon}` becomes a Luxon DateTime. */
const dateExpr = (path: string) => `={{ ($json.${path} && $json.${path}.__luxon) ? DateTime.fromISO($json.${path}.__luxon, { setZone: true }) : $json.${path} }}`;

function presetBounds(preset: string, zone: string): { start: string; end: string } {
	const today = DateTime.now().setZone(zone).startOf('day');
	const end = preset === 'today' ? today : today.plus({ days: 6 });
	return { start: today.toFormat('yyyy-MM-dd') + 'T00:00:00', end: end.toFormat('yyyy-MM-dd') + 'T23:59:59' };
}

describe('Appointment > Get Many with random filters', () => {
	it('each item: exactly the spec request, or an error naming the field; never a request for a bad item', async () => {
		await fc.assert(
			fc.asyncProperty(getAllRun, async (runSpec) => {
				const filters: Record<string, string> = {};
				for (const f of runSpec.present.keys) filters[f] = `={{ $json.keys.${f} }}`;
				for (const f of runSpec.present.texts) filters[f] = `={{ $json.texts.${f} }}`;
				for (const f of runSpec.present.lists) filters[f] = `={{ $json.lists.${f} }}`;
				if (runSpec.present.status) filters.status = '={{ $json.status }}';
				if (runSpec.present.email) filters.email = '={{ $json.email }}';
				if (runSpec.present.isCancelled) filters.isCancelled = '={{ $json.isCancelled }}';
				if (runSpec.present.createdAt) filters.createdAt = dateExpr('createdAt');
				const parameters: Record<string, unknown> = {
					resource: 'appointment',
					operation: 'getAll',
					returnAll: false,
					limit: runSpec.limit,
					dateRange: runSpec.dateRange,
					filters,
					simplify: true,
					options: runSpec.present.zone ? { timeZone: '={{ $json.tz }}' } : {},
				};
				if (runSpec.dateRange === 'custom') {
					parameters.startDate = dateExpr('startDate');
					parameters.endDate = dateExpr('endDate');
				}
				const batch: ItemCase[] = runSpec.items.map((it) => {
					const json: Record<string, unknown> = {
						keys: Object.fromEntries(Object.entries(it.keys).map(([k, g]) => [k, g.value])),
						texts: Object.fromEntries(Object.entries(it.texts).map(([k, g]) => [k, g.value])),
						lists: Object.fromEntries(Object.entries(it.lists).map(([k, g]) => [k, g.value])),
						status: it.status.value,
						email: it.email.value,
						isCancelled: it.isCancelled.value,
						createdAt: it.createdAt.value,
						startDate: it.startDate.value,
						endDate: it.endDate.value,
						tz: it.tz,
					};
					const zone = runSpec.present.zone ? zoneOf(it.tz) : WORKFLOW_ZONE;
					const fields: FieldCheck[] = [];
					for (const [f, param, label] of KEY_FILTERS) if (runSpec.present.keys.includes(f)) fields.push({ label, param, verdict: uuidVerdict(it.keys[f as 'calendarKey'], false) });
					for (const [f, param, label] of TEXT_FILTERS) if (runSpec.present.texts.includes(f)) fields.push({ label, param, verdict: textVerdict(it.texts[f]) });
					for (const [f, param, label] of LIST_FILTERS) if (runSpec.present.lists.includes(f)) fields.push({ label, param, verdict: uuidListVerdict(it.lists[f as 'tagKeys']) });
					if (runSpec.present.status) fields.push({ label: 'Status', param: 'status', verdict: statusVerdict(it.status, false) });
					if (runSpec.present.email) fields.push({ label: 'Email', param: 'email', verdict: emailVerdict(it.email) });
					if (runSpec.present.isCancelled) fields.push({ label: 'Is Canceled', param: 'is_cancelled', verdict: boolVerdict(it.isCancelled) });
					const usesZone =
						(runSpec.present.createdAt && !isBlankDate(it.createdAt)) ||
						runSpec.dateRange === 'today' ||
						runSpec.dateRange === 'next7Days' ||
						(runSpec.dateRange === 'custom' && !(isBlankDate(it.startDate) && isBlankDate(it.endDate)));
					if (runSpec.present.zone && zone === undefined) {
						// a zone that does not exist: refused when a date needs it, harmless otherwise
						fields.push({ label: 'Time Zone', verdict: usesZone ? INVALID : open(() => true) });
					}
					if (runSpec.present.createdAt) fields.push({ label: 'Created At', param: 'created_at', verdict: wallVerdict(it.createdAt, zone, 'any') });
					if (runSpec.dateRange === 'custom') {
						const s = wallVerdict(it.startDate, zone, 'start');
						const e = wallVerdict(it.endDate, zone, 'end');
						if (isBlankDate(it.startDate) && isBlankDate(it.endDate)) {
							fields.push({ label: 'Start Date', param: 'start_date', verdict: open((sent) => sent === undefined) });
							fields.push({ label: 'End Date', param: 'end_date', verdict: OMIT });
						} else {
							fields.push({ label: 'Start Date', param: 'start_date', verdict: s });
							// an end before the start selects nothing: refusing it is the node's choice
							const [sw, ew] = [wantOf(s), wantOf(e)];
							const reversed = sw !== undefined && ew !== undefined && sw > ew;
							fields.push({ label: 'End Date', param: 'end_date', verdict: reversed && e.kind !== 'invalid' ? openExactly(ew) : e });
						}
					} else if (runSpec.dateRange !== 'all' && zone !== undefined) {
						const b = presetBounds(runSpec.dateRange, zone);
						// (a run that straddles midnight may see the next day: accept the day before and after too)
						fields.push({ label: 'Date Range', param: 'start_date', verdict: open((sent) => typeof sent === 'string' && Math.abs(DateTime.fromISO(sent).diff(DateTime.fromISO(b.start), 'days').days) <= 1) });
						fields.push({ label: 'Date Range', param: 'end_date', verdict: open((sent) => typeof sent === 'string' && Math.abs(DateTime.fromISO(sent).diff(DateTime.fromISO(b.end), 'days').days) <= 1) });
					}
					return {
						json,
						fields,
						verifyOutput: (out) => {
							// never more than the limit, never the same appointment twice
							if (out.length > runSpec.limit) throw new Error(`${out.length} results for a limit of ${runSpec.limit}`);
							const seen = new Set(out.map((o) => o.appointment_key ?? o.key));
							if (seen.size !== out.length) throw new Error('an appointment came twice');
						},
					};
				});
				await checkBatch(parameters, batch, { method: 'GET', path: () => '/api/v3/appointments/', extraQuery: ['page', 'page_size', 'limit', 'cursor'], no400: true });
			}),
			{ ...params, numRuns: RUNS(12) },
		);
	});
});

// ---------------------------------------------------------------------------------------------------------------
// Get / Update Status / Cancel / Reschedule: keys, statuses, send e-mail, dates in many formats and zones

const keyOps = fc.constantFrom('get', 'updateStatus', 'cancel', 'reschedule');

describe('Appointment > Get, Update Status, Cancel, Reschedule with random keys, statuses, flags and dates', () => {
	it('each item: exactly the spec request, or an error naming the field', async () => {
		await fc.assert(
			fc.asyncProperty(
				keyOps,
				fc.boolean(),
				batchOf(fc.record({ key: uuidValue(keys), status: statusValue, sendEmail: boolValue, startDate: fc.oneof({ weight: 8, arbitrary: dateValue }, { weight: 1, arbitrary: blankDate }), tz: zoneValue })),
				async (operation, withZone, items) => {
					await sb.reset(50, 21);
					const parameters: Record<string, unknown> = { resource: 'appointment', operation, appointmentKey: '={{ $json.key }}', options: {} };
					if (operation === 'updateStatus') parameters.status = '={{ $json.status }}';
					if (operation === 'cancel') parameters.sendEmail = '={{ $json.sendEmail }}';
					if (operation === 'reschedule') {
						parameters.startDate = dateExpr('startDate');
						if (withZone) parameters.options = { timeZone: '={{ $json.tz }}' };
					}
					const batch: ItemCase[] = items.map((it) => {
						const fields: FieldCheck[] = [{ label: 'Appointment', verdict: uuidVerdict(it.key, true) }];
						let verifyOutput: ItemCase['verifyOutput'];
						if (operation === 'updateStatus') {
							fields.push({ label: 'Status', verdict: statusVerdict(it.status, true) });
							verifyOutput = (out) => {
								if (out[0]?.status !== String(it.status.value).trim().toUpperCase()) throw new Error(`status is ${out[0]?.status}`);
							};
						}
						if (operation === 'cancel') {
							const v = boolVerdict(it.sendEmail);
							fields.push({ label: 'Send Email to Client', param: 'send_email', verdict: v });
						}
						if (operation === 'reschedule') {
							const zone = withZone ? zoneOf(it.tz) : WORKFLOW_ZONE;
							if (zone === undefined) fields.push({ label: 'Time Zone', verdict: INVALID });
							else if (isBlankDate(it.startDate)) fields.push({ label: 'New Start', verdict: INVALID });
							else {
								const instant = instantOf(it.startDate as DateGen, zone);
								if (instant === 'invalid') fields.push({ label: 'New Start', verdict: INVALID });
								else {
									const open_ = it.startDate.tag === 'date-only' || it.startDate.tag === 'sql' || it.startDate.tag === 'iso-basic' || it.startDate.tag === 'rfc2822' || it.startDate.tag === 'epoch-ms';
									fields.push({ label: 'New Start', verdict: open_ ? open(() => true) : OMIT });
									const want = instant === 'open-midnight' ? DateTime.fromISO(String(it.startDate.value), { zone }).toMillis() : instant!;
									verifyOutput = (out) => {
										const got = DateTime.fromISO(String(out[0]?.start_date), { setZone: true });
										if (got.toMillis() !== want) throw new Error(`start_date ${out[0]?.start_date}, expected ${new Date(want).toISOString()}`);
									};
								}
							}
						}
						return { json: { key: it.key.value, status: it.status.value, sendEmail: it.sendEmail.value, startDate: it.startDate.value, tz: it.tz }, fields, verifyOutput };
					});
					const method = { get: 'GET', updateStatus: 'PATCH', cancel: 'DELETE', reschedule: 'PATCH' }[operation];
					await checkBatch(parameters, batch, {
						method,
						path: (c) => (path: string) => {
							const key = String(c.json.key).trim();
							const m = /^\/api\/v3\/appointments\/([^/]+)\/(reschedule\/)?$/.exec(path);
							return !!m && sameUuid(m[1], key) && !!m[2] === (operation === 'reschedule');
						},
						// a well-formed key nobody has, a move the service does not allow, an already cancelled appointment
						apiErrorAllowed: (message) => /not found|The service rejected the request|The service answered 4\d\d/.test(message),
					});
				},
			),
			{ ...params, numRuns: RUNS(12) },
		);
	});
});

// ---------------------------------------------------------------------------------------------------------------
// Webhook > Create / Update / Delete: URLs, event lists, keys

const hostName = fc.oneof(fc.domain(), fc.constantFrom('localhost', '127.0.0.1', '[::1]', 'xn--nandu-rta.test', 'hooks.test'));
const urlValue: fc.Arbitrary<Gen> = fc.oneof(
	{
		weight: 5,
		arbitrary: fc
			.tuple(fc.constantFrom('https://', 'HTTPS://', 'https://'), hostName, fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }), fc.webPath(), fc.constantFrom('', '?a=1', '?x=y&z=%20', '#frag'), fc.constantFrom('', ' '))
			.map(([s, h, p, path, q, padding]) => ({ value: `${padding}${s}${h}${p ? ':' + p : ''}${path}${q}${padding}`, tag: 'https' })),
	},
	{ weight: 3, arbitrary: fc.tuple(fc.constantFrom('http://', 'ftp://', 'ws://', 'wss://', 'file://', 'javascript:', 'mailto:', '//', ''), fc.domain(), fc.webPath()).map(([s, h, p]) => ({ value: `${s}${h}${p}`, tag: 'not-https' })) },
	{ weight: 1, arbitrary: fc.constantFrom('', ' ', 'https://', 'https:// spaced.test/', 'https//x.test', 'https:x').map((v) => ({ value: v, tag: 'broken' })) },
	{ weight: 1, arbitrary: nonStrings.map((v) => ({ value: v, tag: 'type' })) },
);
function urlVerdict(g: Gen): Verdict {
	if (g.tag !== 'https' && g.tag !== 'broken') return INVALID;
	let parsed: URL | undefined;
	try {
		parsed = new URL(String(g.value).trim());
	} catch {
		return INVALID;
	}
	if (parsed.protocol !== 'https:' || !parsed.hostname) return INVALID;
	return g.tag === 'https' ? OMIT : open(() => true);
}

const eventName = fc.oneof(
	{ weight: 6, arbitrary: fc.constantFrom(...KNOWN_EVENTS).map((v) => ({ value: v, tag: 'known' })) },
	{ weight: 1, arbitrary: fc.stringMatching(/^[a-z]{1,8}\.[a-z_]{1,10}$/).map((v) => ({ value: v, tag: 'dotted' })) },
	{ weight: 1, arbitrary: fc.constantFrom('created', 'appointment', '.created', 'appointment.', 'a..b', 'appointment created').map((v) => ({ value: v, tag: 'odd' })) },
	{ weight: 1, arbitrary: fc.constantFrom(1, null, { e: 1 }, true).map((v) => ({ value: v, tag: 'type' })) },
);
const eventsValue = fc.record({
	picked: fc.array(eventName, { maxLength: 4 }),
	other: fc.array(fc.oneof({ weight: 3, arbitrary: eventName.filter((e) => typeof e.value === 'string') }, { weight: 1, arbitrary: blank.map((v) => ({ value: v, tag: 'blank' })) }), { maxLength: 3 }),
	sep: fc.constantFrom(',', ', ', ' , '),
});
type EventsGen = { picked: Gen[]; other: Gen[]; sep: string };
/** The events the subscription must end up with, or why the item is invalid/open. */
function eventsVerdict(g: EventsGen): { events?: string[]; verdict: Verdict } {
	const names: string[] = [];
	let openItem = false;
	for (const e of [...g.picked, ...g.other]) {
		if (e.tag === 'blank') continue;
		if (e.tag === 'type') return { verdict: INVALID };
		if (e.tag === 'odd') openItem = true;
		const name = String(e.value).trim();
		if (name !== '' && !names.includes(name)) names.push(name);
	}
	if (names.length === 0) return { verdict: INVALID };
	if (openItem) return { verdict: open(() => true) };
	return { events: names, verdict: OMIT };
}

describe('Webhook > Create, Update, Delete with random URLs, events and keys', () => {
	it('each item: exactly the spec request, or an error naming the field', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom('create', 'update', 'delete'),
				batchOf(fc.record({ url: urlValue, events: eventsValue, key: fc.oneof({ weight: 3, arbitrary: fc.constant('existing') }, { weight: 2, arbitrary: junkText }, { weight: 1, arbitrary: blank }) })),
				async (operation, items) => {
					await sb.reset(50, 21);
					const existing = (await sb.api('POST', 'webhooks/', { url: 'https://hooks.test/existing', events: ['appointment.created'] })).body.webhook_key as string;
					const parameters: Record<string, unknown> = { resource: 'webhook', operation, options: {} };
					if (operation !== 'delete') Object.assign(parameters, { url: '={{ $json.url }}', events: '={{ $json.picked }}', otherEvents: '={{ $json.other }}' });
					if (operation !== 'create') parameters.webhookKey = '={{ $json.key }}';
					const batch: ItemCase[] = items.map((it) => {
						const key = it.key === 'existing' ? existing : it.key;
						const fields: FieldCheck[] = [];
						let verifyOutput: ItemCase['verifyOutput'];
						// '.' and '..' can be no key (they are path segments): refusing them is fine, naming the field
						// a key that would be a path segment of its own ('.', '..') or more than one ('/', '\\'): refusing it is fine
						const pathLike = ['.', '..'].includes(key.trim()) || /[/\\]/.test(key);
						if (operation !== 'create') fields.push({ label: 'Webhook', verdict: key.trim() === '' ? INVALID : pathLike ? open(() => true) : OMIT });
						if (operation !== 'delete') {
							const ev = eventsVerdict(it.events);
							fields.push({ label: 'URL', verdict: urlVerdict(it.url) });
							fields.push({ label: 'Events', verdict: ev.verdict });
							verifyOutput = (out) => {
								const w = out[0];
								if (w?.url !== String(it.url.value).trim()) throw new Error(`subscription url ${w?.url}`);
								if (ev.events && JSON.stringify([...(w.events as string[])].sort()) !== JSON.stringify([...ev.events].sort())) throw new Error(`subscription events ${JSON.stringify(w.events)}, expected ${JSON.stringify(ev.events)}`);
							};
						}
						const other = it.events.other.map((e) => String(e.value)).join(it.events.sep);
						return { json: { url: it.url.value, picked: it.events.picked.map((e) => e.value), other, key }, fields, verifyOutput };
					});
					const method = { create: 'POST', update: 'PUT', delete: 'DELETE' }[operation]!;
					await checkBatch(parameters, batch, {
						method,
						listFirst: operation === 'update' ? undefined : '/api/v3/webhooks/',
						path: (c) =>
							operation === 'create'
								? '/api/v3/webhooks/'
								: (path: string) => {
										const m = /^\/api\/v3\/webhooks\/([^/]+)\/$/.exec(path);
										if (!m) return false;
										// the sandbox logs the path decoded once
										const key = String(c.json.key).trim();
										if (m[1] === key) return true;
										try {
											return decodeURIComponent(m[1]) === key;
										} catch {
											return false;
										}
									},
						// unknown event names (the service knows three), keys nobody has, a subscription deleted earlier in the batch
						apiErrorAllowed: (message) => /not found|The service rejected the request/.test(message),
					});
				},
			),
			{ ...params, numRuns: RUNS(8) },
		);
	});
});
