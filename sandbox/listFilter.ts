/** The 17 list filters of GET /api/v3/appointments/, parsed from a query into a start range and predicates. */
import { dayBounds, parseDateTime, type DstWallClock } from './dateTimes';
import {
	UUID_RE,
	fieldErrorMap,
	normPhone,
	normIdent,
	isStatus,
	STATUSES,
	type Entry,
	type FieldErrors,
} from './vocabulary';

/** A parsed list query: a start range (binary searched) and predicates. */
export interface ListFilter {
	from: number;
	to: number;
	preds: Array<(e: Entry) => boolean>;
	/** canonical text of the filters, for the list cache */
	key: string;
}

/** What a parameter holds: the spec's types, in the words the node's filter table uses for the same parameters. */
export type ListFilterKind =
	| 'uuid'
	| 'uuidList'
	| 'status'
	| 'text'
	| 'email'
	| 'boolean'
	| 'datetime';

/** How one parameter is read and matched. */
export type ListFilterRule =
	| { kind: 'uuid'; get: (e: Entry) => string }
	| { kind: 'uuidList'; get: (e: Entry) => string[] }
	| { kind: 'status' }
	/** text and email: compared after `norm`, the whole value or (partial) a part of it */
	| {
			kind: 'text' | 'email';
			norm: (s: string) => string;
			get: (e: Entry) => string;
			partial?: boolean;
	  }
	| { kind: 'boolean'; get: (e: Entry) => boolean }
	/** from/to bound the start (to: a date alone means its end); day: the record's value falls on that day */
	| { kind: 'datetime'; bound: 'from' | 'to' | 'day' };

const lower = (s: string) => s.toLowerCase();
const same = (s: string) => s;

/**
 * The spec's list query parameters, in the order they are parsed (a 400's field errors come in this order).
 * Scalar filters: the last value wins when repeated (as Django's QueryDict); an empty value means "no filter".
 * uuidList filters: repeated parameters and/or comma-separated values; a record matches when it has ANY of them.
 */
export const LIST_FILTER_RULES: Readonly<Record<string, ListFilterRule>> = {
	calendar_key: { kind: 'uuid', get: (e) => e.a.calendar.calendar_key },
	client_key: { kind: 'uuid', get: (e) => e.a.client_key },
	person_key: { kind: 'uuid', get: (e) => e.a.person_key },
	status: { kind: 'status' },
	start_date: { kind: 'datetime', bound: 'from' },
	end_date: { kind: 'datetime', bound: 'to' },
	email: { kind: 'email', norm: lower, get: (e) => e.email },
	phone: { kind: 'text', norm: normPhone, get: (e) => e.phone },
	name: { kind: 'text', norm: lower, get: (e) => e.name, partial: true },
	identification_code: { kind: 'text', norm: normIdent, get: (e) => e.ident },
	external_id: { kind: 'text', norm: same, get: (e) => e.a.external_id ?? '' },
	search_code: { kind: 'text', norm: lower, get: (e) => e.code },
	owner_user: { kind: 'text', norm: lower, get: (e) => e.owner },
	is_cancelled: { kind: 'boolean', get: (e) => e.a.is_cancelled },
	service_keys: { kind: 'uuidList', get: (e) => e.a.service_keys },
	tag_keys: { kind: 'uuidList', get: (e) => e.a.tag_keys },
	created_at: { kind: 'datetime', bound: 'day' },
};

export const LIST_FILTERS = Object.keys(LIST_FILTER_RULES);

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export function parseBoolean(v: string): boolean | undefined {
	const s = v.trim().toLowerCase();
	if (TRUE.has(s)) return true;
	if (FALSE.has(s)) return false;
	return undefined;
}

/** One parameter's reading: its errors, or its part of the cache key and its predicate or start bound. */
type Reading =
	| { errors: string[] }
	| { key: string; pred?: (e: Entry) => boolean; from?: number; to?: number };

const invalid = (message: string): Reading => ({ errors: [message] });

/** Reads one parameter's values (already trimmed, none empty; scalar rules get only the last one). */
function readParam(
	rule: ListFilterRule,
	values: string[],
	zone: string,
	dst: DstWallClock,
): Reading {
	const v = values[values.length - 1];
	switch (rule.kind) {
		case 'uuid': {
			if (!UUID_RE.test(v)) return invalid(`"${v}" is not a valid UUID.`);
			const want = v.toLowerCase();
			return { key: want, pred: (e) => rule.get(e) === want };
		}
		case 'uuidList': {
			const bad = values.filter((u) => !UUID_RE.test(u));
			if (bad.length) return { errors: bad.map((b) => `"${b}" is not a valid UUID.`) };
			const want = new Set(values.map((u) => u.toLowerCase()));
			return { key: [...want].sort().join(','), pred: (e) => rule.get(e).some((k) => want.has(k)) };
		}
		case 'status':
			if (!isStatus(v))
				return invalid(
					`Select a valid choice. "${v}" is not one of the available choices: ${STATUSES.join(', ')}.`,
				);
			return { key: v, pred: (e) => e.a.status === v };
		case 'text':
		case 'email': {
			const want = rule.norm(v);
			return {
				key: want,
				pred: rule.partial ? (e) => rule.get(e).includes(want) : (e) => rule.get(e) === want,
			};
		}
		case 'boolean': {
			const b = parseBoolean(v);
			if (b === undefined) return invalid(`"${v}" is not a valid boolean: expected true or false.`);
			return { key: String(b), pred: (e) => rule.get(e) === b };
		}
		case 'datetime':
			return readDate(rule.bound, v, zone, dst);
	}
}

function readDate(
	bound: 'from' | 'to' | 'day',
	v: string,
	zone: string,
	dst: DstWallClock,
): Reading {
	const p = parseDateTime(v, zone, bound === 'to', dst);
	// DRF's message when Django cannot make a naive datetime aware (pytz's NonExistentTimeError, AmbiguousTimeError).
	if (p?.unclear && dst === 'refuse')
		return invalid(`Invalid datetime for the timezone "${zone}".`);
	if (bound !== 'day') {
		if (!p)
			return invalid(
				`"${v}" is not a valid datetime: expected YYYY-MM-DDTHH:mm:ss (account time zone ${zone}), optionally with a UTC offset.`,
			);
		return bound === 'from' ? { key: String(p.ms), from: p.ms } : { key: String(p.ms), to: p.ms };
	}
	if (!p)
		return invalid(
			`"${v}" is not a valid date: expected YYYY-MM-DD or YYYY-MM-DDTHH:mm:ss (account time zone ${zone}).`,
		);
	const [lo, hi] = dayBounds(p.ms, zone);
	return { key: String(lo), pred: (e) => e.a.created >= lo && e.a.created <= hi };
}

/** The values a query gives a parameter: trimmed, empty ones dropped; a list's also split at commas. */
function valuesOf(q: URLSearchParams, param: string, rule: ListFilterRule): string[] {
	const all = q.getAll(param);
	if (rule.kind !== 'uuidList')
		return all.length ? [all[all.length - 1].trim()].filter((v) => v !== '') : [];
	return all
		.flatMap((v) => v.split(','))
		.map((v) => v.trim())
		.filter((v) => v !== '');
}

/**
 * Parses the 17 filters from the query (the rules of LIST_FILTER_RULES) into a filter, or DRF-style field errors.
 * Offset-less datetimes are wall clock in the account zone `zone`; `dst` reads those a clock change skips or repeats.
 */
export function parseListFilter(
	q: URLSearchParams,
	zone: string,
	dst: DstWallClock = 'zoneinfo',
): { filter?: ListFilter; errors?: FieldErrors } {
	const errors = fieldErrorMap();
	const filter: ListFilter = { from: -Infinity, to: Infinity, preds: [], key: '' };
	const keyParts: string[] = [];
	for (const [param, rule] of Object.entries(LIST_FILTER_RULES)) {
		const values = valuesOf(q, param, rule);
		if (!values.length) continue;
		const reading = readParam(rule, values, zone, dst);
		if ('errors' in reading) {
			errors[param] = reading.errors;
			continue;
		}
		keyParts.push(`${param}=${reading.key}`);
		if (reading.pred) filter.preds.push(reading.pred);
		if (reading.from !== undefined) filter.from = reading.from;
		if (reading.to !== undefined) filter.to = reading.to;
	}
	if (Object.keys(errors).length) return { errors };
	return { filter: { ...filter, key: keyParts.join('&') } };
}
