/**
 * The appointment store: records kept sorted by (start, appointment_key) once, a key index, a cached JSON string of
 * each public record and a small cache of filtered lists (cleared on every change). The filters: listFilter.ts.
 */
import { formatInstant } from './dateTimes';
import type { ListFilter } from './listFilter';
import { normIdent, normPhone, type Appointment, type Entry } from './vocabulary';

function cmp(a: Appointment, b: Appointment): number {
	return (
		a.start - b.start ||
		(a.appointment_key < b.appointment_key ? -1 : a.appointment_key > b.appointment_key ? 1 : 0)
	);
}

export function publicRecord(a: Appointment, zone: string) {
	return {
		appointment_key: a.appointment_key,
		search_code: a.search_code,
		status: a.status,
		start_date: formatInstant(a.start, zone),
		calendar: { calendar_key: a.calendar.calendar_key, name: a.calendar.name },
		person: { full_name: a.person.full_name, email: a.person.email },
	};
}

export function internalRecord(a: Appointment, zone: string) {
	return {
		...publicRecord(a, zone),
		client_key: a.client_key,
		person_key: a.person_key,
		phone: a.phone,
		identification_code: a.identification_code,
		external_id: a.external_id,
		service_keys: [...a.service_keys],
		tag_keys: [...a.tag_keys],
		owner_user: a.owner_user,
		created_at: formatInstant(a.created, zone),
		is_cancelled: a.is_cancelled,
	};
}

export class AppointmentStore {
	private sorted: Entry[] = [];
	private byKey = new Map<string, Entry>();
	private cache = new Map<string, Entry[]>();
	version = 0;

	constructor(private zone: string) {}

	setZone(zone: string) {
		if (zone === this.zone) return;
		this.zone = zone;
		this.cache.clear();
	}

	get size() {
		return this.sorted.length;
	}

	clear() {
		this.sorted = [];
		this.byKey.clear();
		this.changed();
	}

	/** Bulk load (seed): sorts once. */
	load(list: Appointment[]) {
		this.sorted = list.map((a) => this.entry(a));
		this.sorted.sort((x, y) => cmp(x.a, y.a));
		this.byKey = new Map(this.sorted.map((e) => [e.a.appointment_key, e]));
		this.changed();
	}

	get(key: string): Appointment | undefined {
		return this.byKey.get(key.toLowerCase())?.a;
	}

	has(key: string) {
		return this.byKey.has(key.toLowerCase());
	}

	hasSearchCode(code: string) {
		const c = code.toLowerCase();
		for (const e of this.sorted) if (e.code === c) return true;
		return false;
	}

	insert(a: Appointment) {
		const e = this.entry(a);
		this.sorted.splice(this.lowerIndex(a), 0, e);
		this.byKey.set(a.appointment_key, e);
		this.changed();
	}

	/** Removes the record (a service whose DELETE deletes); its last JSON stays computable from the object. */
	remove(key: string) {
		const e = this.byKey.get(key.toLowerCase());
		if (!e) return;
		this.sorted.splice(this.indexOf(e.a), 1);
		this.byKey.delete(e.a.appointment_key);
		this.changed();
	}

	/** Applies `change` to the record; re-sorts it when the start moved. */
	update(key: string, change: (a: Appointment) => void): Appointment | undefined {
		const e = this.byKey.get(key.toLowerCase());
		if (!e) return undefined;
		const idx = this.indexOf(e.a);
		change(e.a);
		if (
			idx >= 0 &&
			((this.sorted[idx - 1] && cmp(this.sorted[idx - 1].a, e.a) > 0) ||
				(this.sorted[idx + 1] && cmp(e.a, this.sorted[idx + 1].a) > 0))
		) {
			this.sorted.splice(idx, 1);
			this.sorted.splice(this.lowerIndex(e.a), 0, e);
		}
		this.refresh(e);
		this.changed();
		return e.a;
	}

	/** Public JSON of a record (cached). */
	json(a: Appointment): string {
		const e = this.byKey.get(a.appointment_key);
		if (!e) return JSON.stringify(publicRecord(a, this.zone));
		if (e.json === undefined || e.jsonZone !== this.zone) {
			e.json = JSON.stringify(publicRecord(e.a, this.zone));
			e.jsonZone = this.zone;
		}
		return e.json;
	}

	/** Filtered list, sorted by start then key. */
	list(filter: ListFilter): Appointment[] {
		return this.entries(filter).map((e) => e.a);
	}

	/** JSON strings of a slice of the filtered list, and the total count. */
	page(
		filter: ListFilter,
		offset: number,
		limit: number,
	): { count: number; items: string[]; first?: Appointment; last?: Appointment } {
		const list = this.entries(filter);
		const slice = list.slice(offset, offset + limit);
		return {
			count: list.length,
			items: slice.map((e) => this.json(e.a)),
			first: slice[0]?.a,
			last: slice[slice.length - 1]?.a,
		};
	}

	/** Position in the filtered list of the first record after (start, key), or at/after it when `strict` is false. */
	positionAfter(filter: ListFilter, start: number, key: string, strict: boolean): number {
		const list = this.entries(filter);
		let lo = 0;
		let hi = list.length;
		const probe = { start, appointment_key: key } as Appointment;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			const c = cmp(list[mid].a, probe);
			if (strict ? c <= 0 : c < 0) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}

	all(): Appointment[] {
		return this.sorted.map((e) => e.a);
	}

	private entries(filter: ListFilter): Entry[] {
		const cached = this.cache.get(filter.key);
		if (cached) return cached;
		let lo = 0;
		let hi = this.sorted.length;
		if (filter.from !== -Infinity) lo = this.boundary(filter.from, false);
		if (filter.to !== Infinity) hi = this.boundary(filter.to, true);
		let out: Entry[];
		if (lo >= hi) out = [];
		else if (!filter.preds.length) out = this.sorted.slice(lo, hi);
		else {
			out = [];
			const preds = filter.preds;
			outer: for (let i = lo; i < hi; i++) {
				const e = this.sorted[i];
				for (const p of preds) if (!p(e)) continue outer;
				out.push(e);
			}
		}
		if (this.cache.size >= 16) this.cache.delete(this.cache.keys().next().value as string);
		this.cache.set(filter.key, out);
		return out;
	}

	/** First index with start >= t (or > t when `after`). */
	private boundary(t: number, after: boolean): number {
		let lo = 0;
		let hi = this.sorted.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			const s = this.sorted[mid].a.start;
			if (after ? s <= t : s < t) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}

	private lowerIndex(a: Appointment): number {
		let lo = 0;
		let hi = this.sorted.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (cmp(this.sorted[mid].a, a) < 0) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}

	private indexOf(a: Appointment): number {
		const i = this.lowerIndex(a);
		return this.sorted[i]?.a === a ? i : this.sorted.findIndex((e) => e.a === a);
	}

	private entry(a: Appointment): Entry {
		const e = { a } as Entry;
		this.refresh(e);
		return e;
	}

	private refresh(e: Entry) {
		e.json = undefined;
		e.email = e.a.person.email.toLowerCase();
		e.name = e.a.person.full_name.toLowerCase();
		e.phone = normPhone(e.a.phone);
		e.ident = normIdent(e.a.identification_code);
		e.code = e.a.search_code.toLowerCase();
		e.owner = e.a.owner_user.toLowerCase();
	}

	private changed() {
		this.version++;
		this.cache.clear();
	}
}
