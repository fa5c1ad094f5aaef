/** The 17 list filters of GET /api/v3/appointments/, parsed from a query into a start range and predicates. */
import { dayBounds, parseDateTime } from './dateTimes';
import { UUID_RE, fieldErrorMap, normPhone, normIdent, isStatus, STATUSES, type Entry, type FieldErrors } from './vocabulary';


/** A parsed list query: a start range (binary searched) and predicates. */
export interface ListFilter {
	from: number;
	to: number;
	preds: Array<(e: Entry) => boolean>;
	/** canonical text of the filters, for the list cache */
	key: string;
}

export const LIST_FILTERS = [
	'calendar_key',
	'client_key',
	'person_key',
	'status',
	'start_date',
	'end_date',
	'email',
	'phone',
	'name',
	'identification_code',
	'external_id',
	'search_code',
	'is_cancelled',
	'service_keys',
	'tag_keys',
	'owner_user',
	'created_at',
] as const;

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export function parseBoolean(v: string): boolean | undefined {
	const s = v.trim().toLowerCase();
	if (TRUE.has(s)) return true;
	if (FALSE.has(s)) return false;
	return undefined;
}

/**
 * Parses the 17 filters from the query. Scalar filters: the last value wins when repeated (as Django's QueryDict);
 * an empty value means "no filter". Array filters (service_keys, tag_keys): repeated parameters and/or
 * comma-separated values; a record matches when it has ANY of the given keys.
 */
export function parseListFilter(q: URLSearchParams, zone: string): { filter?: ListFilter; errors?: FieldErrors } {
	const errors = fieldErrorMap();
	const err = (f: string, m: string) => (errors[f] ??= []).push(m);
	const last = (name: string): string | undefined => {
		const all = q.getAll(name);
		const v = all.length ? all[all.length - 1].trim() : undefined;
		return v === '' ? undefined : v;
	};
	const preds: ListFilter['preds'] = [];
	const keyParts: string[] = [];
	let from = -Infinity;
	let to = Infinity;

	for (const f of ['calendar_key', 'client_key', 'person_key'] as const) {
		const v = last(f);
		if (v === undefined) continue;
		if (!UUID_RE.test(v)) {
			err(f, `"${v}" is not a valid UUID.`);
			continue;
		}
		const want = v.toLowerCase();
		keyParts.push(`${f}=${want}`);
		if (f === 'calendar_key') preds.push((e) => e.a.calendar.calendar_key === want);
		else if (f === 'client_key') preds.push((e) => e.a.client_key === want);
		else preds.push((e) => e.a.person_key === want);
	}
	const status = last('status');
	if (status !== undefined) {
		if (!isStatus(status)) err('status', `Select a valid choice. "${status}" is not one of the available choices: ${STATUSES.join(', ')}.`);
		else {
			keyParts.push(`status=${status}`);
			preds.push((e) => e.a.status === status);
		}
	}
	for (const f of ['start_date', 'end_date'] as const) {
		const v = last(f);
		if (v === undefined) continue;
		const p = parseDateTime(v, zone, f === 'end_date');
		if (!p) {
			err(f, `"${v}" is not a valid datetime: expected YYYY-MM-DDTHH:mm:ss (account time zone ${zone}), optionally with a UTC offset.`);
			continue;
		}
		if (f === 'start_date') from = Math.max(from, p.ms);
		else to = Math.min(to, p.ms);
	}
	if (from !== -Infinity || to !== Infinity) keyParts.push(`range=${from},${to}`);
	const text = (f: string, norm: (s: string) => string, get: (e: Entry) => string, partial = false) => {
		const v = last(f);
		if (v === undefined) return;
		const want = norm(v);
		keyParts.push(`${f}=${want}`);
		preds.push(partial ? (e) => get(e).includes(want) : (e) => get(e) === want);
	};
	const lower = (s: string) => s.toLowerCase();
	text('email', lower, (e) => e.email);
	text('phone', normPhone, (e) => e.phone);
	text('name', lower, (e) => e.name, true);
	text('identification_code', normIdent, (e) => e.ident);
	text('external_id', (s) => s, (e) => e.a.external_id ?? '');
	text('search_code', lower, (e) => e.code);
	text('owner_user', lower, (e) => e.owner);
	const cancelled = last('is_cancelled');
	if (cancelled !== undefined) {
		const b = parseBoolean(cancelled);
		if (b === undefined) err('is_cancelled', `"${cancelled}" is not a valid boolean: expected true or false.`);
		else {
			keyParts.push(`is_cancelled=${b}`);
			preds.push((e) => e.a.is_cancelled === b);
		}
	}
	for (const f of ['service_keys', 'tag_keys'] as const) {
		const values = q
			.getAll(f)
			.flatMap((v) => v.split(','))
			.map((v) => v.trim())
			.filter((v) => v !== '');
		if (!values.length) continue;
		const bad = values.filter((v) => !UUID_RE.test(v));
		if (bad.length) {
			for (const b of bad) err(f, `"${b}" is not a valid UUID.`);
			continue;
		}
		const want = new Set(values.map((v) => v.toLowerCase()));
		keyParts.push(`${f}=${[...want].sort().join(',')}`);
		preds.push((e) => e.a[f].some((k) => want.has(k)));
	}
	const created = last('created_at');
	if (created !== undefined) {
		const p = parseDateTime(created, zone);
		if (!p) err('created_at', `"${created}" is not a valid date: expected YYYY-MM-DD or YYYY-MM-DDTHH:mm:ss (account time zone ${zone}).`);
		else {
			const [lo, hi] = dayBounds(p.ms, zone);
			keyParts.push(`created_at=${lo}`);
			preds.push((e) => e.a.created >= lo && e.a.created <= hi);
		}
	}
	if (Object.keys(errors).length) return { errors };
	return { filter: { from, to, preds, key: keyParts.join('&') } };
}

