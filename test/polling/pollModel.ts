/**
 * The reference model of the polling trigger's change events (model.test.ts), written from docs/triggers.md, not
 * from the node's code: what one successful poll must emit, given what the last successful poll saw and what the
 * service holds now.
 *
 * - Cancelled: a status starting with CANCEL, or `is_cancelled: true`.
 * - An appointment is observed when the service lists it (in the window, unless the service ignores the dates;
 *   not when it hides cancelled ones), or when it was watched (last seen inside the window and not cancelled): then
 *   it is read by key, and a 404 is `canceled` with `{ appointment_key, canceled: true }`.
 * - A record without a text status or a readable start_date is skipped: no event, and what was seen of it stays.
 * - Filters: an event is emitted when its data's calendar and status match (a field it lacks is not held against
 *   it); a 404's `canceled` is matched on the calendar it was last seen in.
 * - Observed and never seen: `created` when its start lies in the window (and `canceled` too if it is cancelled).
 * - Observed and seen before with another start or status: becoming cancelled is `canceled` only; otherwise
 *   `rescheduled` (start), `status_changed` (status) and `updated`, each with `previous` = what was seen.
 * - Appointments seen with a start more than Days Back (at least a day) before the window are forgotten.
 * - n8n saves what a poll saw when it emitted items, and after an activation (a restart's first poll); otherwise
 *   it stays in memory only, so a restart goes back to the last saved poll.
 */
export const DAY = 86_400_000;
export const HOUR = 3_600_000;

export interface Seen {
	start: number;
	status: string;
	cancelled: boolean;
	calendar: string;
}

export interface ServiceRecord {
	appointment_key: string;
	status: string | null;
	start_date: string;
	is_cancelled?: boolean;
	calendar: { calendar_key: string };
}

export interface Filters {
	calendars: ReadonlySet<string>;
	statuses: ReadonlySet<string>;
}

export interface ServiceView {
	records: ReadonlyMap<string, ServiceRecord>;
	hidesCancelled: boolean;
	ignoresDates: boolean;
}

export interface ExpectedEvent {
	event: string;
	key: string;
	/** The current record, or `{ appointment_key, canceled: true }` for one the service forgot. */
	data: unknown;
	previous?: Seen;
}

export const isCancelledStatus = (status: string | null) => /^CANCEL/i.test(String(status));
export const isCancelledRecord = (r: ServiceRecord) =>
	isCancelledStatus(r.status) || r.is_cancelled === true;
const unusable = (r: ServiceRecord) =>
	typeof r.status !== 'string' || Number.isNaN(Date.parse(r.start_date));

export class PollModel {
	/** What the last successful poll saw (in n8n's memory), and what n8n saved (the last emitting poll). */
	private seen = new Map<string, Seen>();
	private saved = new Map<string, Seen>();

	constructor(
		private readonly from: number,
		private readonly to: number,
		private readonly selected: ReadonlySet<string>,
		private readonly filters: Filters = { calendars: new Set(), statuses: new Set() },
	) {}

	private inWindow = (start: number) => start >= this.from && start <= this.to;

	/** The activation poll: everything in the window is seen, nothing is emitted, and the state is saved. */
	baseline(service: ServiceView): void {
		this.seen.clear();
		for (const [key, r] of service.records)
			if (this.listed(service, r) && !unusable(r)) this.seen.set(key, toSeen(r));
		this.seen = new Map([...this.seen].filter(([, s]) => this.inWindow(s.start)));
		this.saved = new Map(this.seen);
	}

	private listed(service: ServiceView, r: ServiceRecord): boolean {
		if (service.hidesCancelled && isCancelledRecord(r)) return false;
		return service.ignoresDates || this.inWindow(Date.parse(r.start_date));
	}

	/** n8n restarts: the state it saved last comes back (then the activation poll runs). */
	restart(): void {
		this.seen = new Map(this.saved);
	}

	/** One successful poll: the selected events it must emit, and the new state (saved when it emits or activates). */
	poll(service: ServiceView, activation = false): ExpectedEvent[] {
		const all: ExpectedEvent[] = [];
		for (const [key, r] of service.records) {
			if (this.listed(service, r)) all.push(...this.observe(key, r));
		}
		for (const [key, before] of [...this.seen]) {
			const r = service.records.get(key);
			const watched = this.inWindow(before.start) && !before.cancelled;
			if (!watched || (r !== undefined && this.listed(service, r))) continue;
			if (r !== undefined) {
				all.push(...this.observe(key, r));
				continue;
			}
			this.seen.delete(key);
			if (this.filters.calendars.size > 0 && !this.filters.calendars.has(before.calendar)) continue;
			all.push({
				event: 'appointment.canceled',
				key,
				data: { appointment_key: key, canceled: true },
			});
		}
		for (const [key, s] of this.seen) if (s.start < this.from - DAY) this.seen.delete(key);
		const emitted = all.filter((e) => this.selected.has(e.event) && this.matches(e));
		if (emitted.length > 0 || activation) this.saved = new Map(this.seen);
		return emitted;
	}

	/** Removals were matched on their last seen calendar already. */
	private matches(e: ExpectedEvent): boolean {
		const data = e.data as Partial<ServiceRecord>;
		if (data.calendar === undefined) return true;
		const { calendars, statuses } = this.filters;
		if (calendars.size > 0 && !calendars.has(data.calendar.calendar_key)) return false;
		return statuses.size === 0 || statuses.has(data.status!);
	}

	private observe(key: string, r: ServiceRecord): ExpectedEvent[] {
		if (unusable(r)) return [];
		const now = toSeen(r);
		const before = this.seen.get(key);
		const data = { ...r };
		if (before === undefined) {
			if (!this.inWindow(now.start)) return [];
			this.seen.set(key, now);
			const created: ExpectedEvent = { event: 'appointment.created', key, data };
			return now.cancelled ? [created, { event: 'appointment.canceled', key, data }] : [created];
		}
		this.seen.set(key, now); // its calendar too, even when nothing else changed
		const same = before.start === now.start && before.status === now.status;
		if (same && before.cancelled === now.cancelled) return [];
		if (now.cancelled && !before.cancelled) return [{ event: 'appointment.canceled', key, data }];
		const out: ExpectedEvent[] = [];
		if (before.start !== now.start)
			out.push({ event: 'appointment.rescheduled', key, data, previous: before });
		if (before.status !== now.status)
			out.push({ event: 'appointment.status_changed', key, data, previous: before });
		out.push({ event: 'appointment.updated', key, data, previous: before });
		return out;
	}
}

const toSeen = (r: ServiceRecord): Seen => ({
	start: Date.parse(r.start_date),
	status: r.status!,
	cancelled: isCancelledRecord(r),
	calendar: r.calendar.calendar_key,
});
