/**
 * What the service does, once, for the API routes, the admin routes and the dashboard alike: each operation
 * validates everything before changing anything and returns the answer the API gives plus the deliveries it queued.
 */
import crypto from 'node:crypto';

import { formatInstant, parseDateTime } from './dateTimes';
import type { Notification } from './deliveries';
import { NOT_FOUND, describe, fieldErrors, json, unknownKeys, type Result } from './routeHelpers';
import { generateAppointment, searchCode, uuid } from './seed';
import type { SandboxState, Webhook } from './sandboxState';
import { internalRecord } from './store';
import {
	CANCELLED_STATUSES,
	EVENTS,
	STATUSES,
	fieldErrorMap,
	isStatus,
	type Appointment,
	type FieldErrors,
	type Status,
} from './vocabulary';
import type { AdminCreate } from './schemas';

export interface Outcome extends Result {
	queued: Notification[];
}

const done = (r: Result, queued: Notification[] = []): Outcome => ({ ...r, queued });

/**
 * PATCH status transitions. From any status that is not a cancelled one, every status is accepted (the service's
 * real rules are not shown; a permissive table lets the nodes be tested for every move). Out of the cancelled
 * statuses nothing but the same status is accepted.
 */
export const TRANSITIONS: Record<Status, readonly Status[]> = Object.fromEntries(
	STATUSES.map((s) => [s, CANCELLED_STATUSES.has(s) ? [s] : STATUSES]),
) as unknown as Record<Status, readonly Status[]>;

export function mutationAnswer(s: SandboxState, a: Appointment): Result {
	return s.cfg.mutationResponse === 'empty'
		? { status: 204 }
		: { status: 200, raw: s.store.json(a) };
}

export function changeStatus(s: SandboxState, a: Appointment, b: Record<string, unknown>): Outcome {
	const errors = unknownKeys(b, ['status']);
	if (!('status' in b)) errors.status = ['This field is required.'];
	else if (!isStatus(b.status))
		errors.status = [
			`"${describe(b.status)}" is not a valid choice; expected one of ${STATUSES.join(', ')}.`,
		];
	if (Object.keys(errors).length) return done(fieldErrors(errors));
	const next = b.status as Status;
	if (!TRANSITIONS[a.status].includes(next)) {
		return done(
			fieldErrors({
				status: [`Cannot change the status of a cancelled appointment (${a.status}) to ${next}.`],
			}),
		);
	}
	let queued: Notification[] = [];
	if (next !== a.status) {
		s.store.update(a.appointment_key, (x) => {
			x.status = next;
			x.is_cancelled = CANCELLED_STATUSES.has(next);
		});
		queued = s.emit('appointment.updated', a);
	}
	return done(mutationAnswer(s, a), queued);
}

export function reschedule(s: SandboxState, a: Appointment, b: Record<string, unknown>): Outcome {
	const errors = unknownKeys(b, ['start_date']);
	let start: number | undefined;
	if (!('start_date' in b)) errors.start_date = ['This field is required.'];
	else if (typeof b.start_date !== 'string')
		errors.start_date = ['Expected an ISO 8601 datetime string with a UTC offset.'];
	else {
		const p = parseDateTime(b.start_date, s.cfg.timeZone);
		const text = describe(b.start_date);
		if (!p || !p.hasTime) {
			errors.start_date = [
				`"${text}" is not a valid datetime: expected ISO 8601 with a UTC offset (years 0001-9999, offsets up to ±18:00), e.g. 2026-11-24T10:30:00-03:00.`,
			];
		} else if (!p.hasOffset)
			errors.start_date = [
				`"${text}" has no UTC offset: expected ISO 8601 with a UTC offset, e.g. ${text}-03:00 or ${text}Z.`,
			];
		else start = p.ms;
	}
	if (Object.keys(errors).length) return done(fieldErrors(errors));
	if (a.is_cancelled)
		return done(
			fieldErrors({
				non_field_errors: [`A cancelled appointment (${a.status}) cannot be rescheduled.`],
			}),
		);
	const taken = start === a.start ? undefined : takenBy(s, a, start!);
	if (taken) return done(takenAnswer(s, taken, start!));
	let queued: Notification[] = [];
	if (start !== a.start) {
		s.store.update(a.appointment_key, (x) => {
			x.start = start!;
		});
		queued = s.emit('appointment.updated', a);
	}
	return done(mutationAnswer(s, a), queued);
}

/** With `takenSlot` on: another active appointment of the calendar whose slot (`slotMinutes`) overlaps the new one. */
function takenBy(s: SandboxState, a: Appointment, start: number): Appointment | undefined {
	if (s.cfg.takenSlot === 'allow') return undefined;
	const slot = s.cfg.slotMinutes * 60_000;
	return s.store
		.all()
		.find(
			(b) =>
				b.appointment_key !== a.appointment_key &&
				!b.is_cancelled &&
				b.calendar.calendar_key === a.calendar.calendar_key &&
				Math.abs(b.start - start) < slot,
		);
}

function takenAnswer(s: SandboxState, taken: Appointment, start: number): Result {
	const message = `The slot at ${formatInstant(start, s.cfg.timeZone)} is not available: appointment ${taken.search_code} is booked then.`;
	return s.cfg.takenSlot === 'conflict'
		? json(409, { detail: message })
		: fieldErrors({ start_date: [message] });
}

export function cancel(s: SandboxState, a: Appointment, sendEmail: boolean): Outcome {
	if (a.is_cancelled) {
		// Already cancelled: nothing changes and no event. The switch lets clients be tested against services that
		// e-mail again or answer 404 to a repeated cancel.
		if (s.cfg.repeatCancel === 'not-found') return done(NOT_FOUND());
		if (s.cfg.repeatCancel === 'email-again' && sendEmail) s.recordEmail(a);
		return done(mutationAnswer(s, a));
	}
	s.store.update(a.appointment_key, (x) => {
		x.status = 'CANCELED';
		x.is_cancelled = true;
	});
	if (sendEmail) s.recordEmail(a);
	const queued = s.emit('appointment.canceled', a);
	// A service whose DELETE deletes: the event and the answer carry the record's last data, then it is gone.
	if (s.cfg.cancelRemoves) s.store.remove(a.appointment_key);
	return done(mutationAnswer(s, a), queued);
}

export function validateWebhook(
	s: SandboxState,
	b: Record<string, unknown>,
): { errors?: FieldErrors; url?: string; events?: string[] } {
	const errors = unknownKeys(b, ['url', 'events']);
	let url: string | undefined;
	let events: string[] | undefined;
	if (!('url' in b)) errors.url = ['This field is required.'];
	else if (typeof b.url !== 'string' || b.url.trim() === '') errors.url = ['Enter a valid URL.'];
	else {
		let u: URL | undefined;
		try {
			u = new URL(b.url.trim());
		} catch {
			errors.url = [`"${describe(b.url)}" is not a valid URL.`];
		}
		if (u) {
			const okScheme =
				u.protocol === 'https:' || (s.cfg.allowInsecureCallbacks && u.protocol === 'http:');
			if (!okScheme)
				errors.url = [`The callback URL must use HTTPS (got "${u.protocol.replace(':', '')}").`];
			else if (!u.hostname) errors.url = ['The callback URL has no host.'];
			else if (u.username || u.password)
				errors.url = ['The callback URL must not contain credentials.'];
			else if (b.url.length > 2048)
				errors.url = ['Ensure this field has no more than 2048 characters.'];
			else url = b.url.trim();
		}
	}
	if (!('events' in b)) errors.events = ['This field is required.'];
	else if (!Array.isArray(b.events))
		errors.events = [`Expected a list of event names (${EVENTS.join(', ')}).`];
	else if (b.events.length === 0)
		errors.events = ['This list may not be empty: subscribe to at least one event.'];
	else {
		const bad = b.events.filter(
			(e) => typeof e !== 'string' || !(EVENTS as readonly string[]).includes(e),
		);
		if (bad.length)
			errors.events = bad.map(
				(e) => `"${describe(e)}" is not a valid event; expected one of ${EVENTS.join(', ')}.`,
			);
		else events = [...new Set(b.events as string[])];
	}
	return Object.keys(errors).length ? { errors } : { url, events };
}

export function createWebhook(s: SandboxState, b: Record<string, unknown>): Result {
	const v = validateWebhook(s, b);
	if (v.errors) return fieldErrors(v.errors);
	const w: Webhook = {
		webhook_key: crypto.randomUUID(),
		url: v.url!,
		events: v.events!,
		created_at: formatInstant(Date.now(), s.cfg.timeZone),
	};
	s.webhooks.set(w.webhook_key, w);
	return json(201, w);
}

export function updateWebhook(s: SandboxState, key: string, b: Record<string, unknown>): Result {
	const w = s.webhooks.get(key.toLowerCase());
	if (!w) return NOT_FOUND();
	const v = validateWebhook(s, b);
	if (v.errors) return fieldErrors(v.errors);
	w.url = v.url!;
	w.events = v.events!;
	return json(200, w);
}

export function deleteWebhook(s: SandboxState, key: string): Result {
	return s.webhooks.delete(key.toLowerCase()) ? { status: 204 } : NOT_FOUND();
}

/** Admin creation (POST /__sandbox/appointments/): missing values are generated from the seed. */
export function createAppointment(s: SandboxState, b: AdminCreate): Outcome {
	const tz = s.cfg.timeZone;
	const errors = fieldErrorMap();
	const dateField = (f: 'start_date' | 'created_at') => {
		const v = b[f];
		if (v === undefined) return undefined;
		const p = parseDateTime(v, tz);
		if (!p)
			errors[f] = [
				`"${describe(v)}" is not a valid datetime: expected ISO 8601, years 0001-9999 (an offset-less value is read in ${tz}).`,
			];
		return p?.ms;
	};
	const start = dateField('start_date');
	const created = dateField('created_at');
	if (b.appointment_key && s.store.has(b.appointment_key))
		errors.appointment_key = ['An appointment with this key already exists.'];
	if (b.search_code && s.store.hasSearchCode(b.search_code))
		errors.search_code = ['An appointment with this search code already exists.'];
	const status: Status = b.status ?? (b.is_cancelled ? 'CANCELED' : 'CONFIRMED');
	if (b.is_cancelled !== undefined && b.is_cancelled !== CANCELLED_STATUSES.has(status)) {
		errors.is_cancelled = [
			`is_cancelled must be ${CANCELLED_STATUSES.has(status)} for status ${status}.`,
		];
	}
	if (Object.keys(errors).length) return done(fieldErrors(errors));
	const now = Date.now();
	const defaultStart = now + (1 + Math.floor(s.rand() * 7 * 24 * 4)) * 15 * 60_000;
	const g = generateAppointment(
		s.rand,
		s.seedWorld,
		start ?? defaultStart - (defaultStart % (15 * 60_000)),
		status,
		created ?? now,
	);
	while (s.store.has(g.appointment_key)) g.appointment_key = uuid(s.rand);
	while (s.store.hasSearchCode(g.search_code)) g.search_code = searchCode(s.rand);
	const known =
		b.calendar &&
		s.seedWorld.calendars.find((c) => c.calendar_key === b.calendar!.calendar_key.toLowerCase());
	const a: Appointment = {
		...g,
		appointment_key: b.appointment_key?.toLowerCase() ?? g.appointment_key,
		search_code: b.search_code ?? g.search_code,
		calendar: b.calendar
			? {
					calendar_key: b.calendar.calendar_key.toLowerCase(),
					name: b.calendar.name ?? known?.name ?? 'Calendar',
				}
			: g.calendar,
		person: {
			full_name: b.person?.full_name ?? g.person.full_name,
			email: b.person?.email ?? g.person.email,
		},
		client_key: b.client_key?.toLowerCase() ?? g.client_key,
		person_key: b.person_key?.toLowerCase() ?? g.person_key,
		phone: b.phone ?? g.phone,
		identification_code: b.identification_code ?? g.identification_code,
		external_id: b.external_id !== undefined ? b.external_id : g.external_id,
		service_keys: b.service_keys?.map((k) => k.toLowerCase()) ?? g.service_keys,
		tag_keys: b.tag_keys?.map((k) => k.toLowerCase()) ?? g.tag_keys,
		owner_user: b.owner_user ?? g.owner_user,
	};
	s.store.insert(a);
	s.wrote(a.appointment_key);
	const queued = s.emit('appointment.created', a);
	return done(json(201, internalRecord(a, tz)), queued);
}
