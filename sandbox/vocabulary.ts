/**
 * The service's vocabulary, shared by every part of the sandbox: statuses, events, key rules, the appointment
 * record and the normalised forms the filters match on, and the shape of field errors. It imports nothing, so
 * any module may import it without a cycle.
 */
export const STATUSES = [
	'CONFIRMED',
	'PENDING',
	'ATTENDED',
	'IN_PROGRESS',
	'NO_SHOW',
	'CANCELED',
	'CANCELED_CLIENT',
	'CANCELED_GOOGLE',
	'PENDING_PAYMENT',
	'PENDING_FORM',
	'PENDING_COMPANIONS',
] as const;
export type Status = (typeof STATUSES)[number];
export const CANCELLED_STATUSES: ReadonlySet<string> = new Set([
	'CANCELED',
	'CANCELED_CLIENT',
	'CANCELED_GOOGLE',
]);
export const isStatus = (s: unknown): s is Status =>
	typeof s === 'string' && (STATUSES as readonly string[]).includes(s);

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface Appointment {
	appointment_key: string;
	search_code: string;
	status: Status;
	/** start_date as epoch ms */
	start: number;
	calendar: { calendar_key: string; name: string };
	person: { full_name: string; email: string };
	// filter-only attributes
	client_key: string;
	person_key: string;
	phone: string;
	identification_code: string;
	external_id: string | null;
	service_keys: string[];
	tag_keys: string[];
	owner_user: string;
	/** created_at as epoch ms */
	created: number;
	is_cancelled: boolean;
}

export interface Entry {
	a: Appointment;
	json: string | undefined;
	jsonZone: string | undefined;
	// normalised values for matching
	email: string;
	name: string;
	phone: string;
	ident: string;
	code: string;
	owner: string;
}

export const normPhone = (s: string) => s.replace(/[^\d+]/g, '');
export const normIdent = (s: string) => s.replace(/[.\-\s]/g, '').toLowerCase();

export const EVENTS = [
	'appointment.created',
	'appointment.updated',
	'appointment.canceled',
] as const;
export type EventName = (typeof EVENTS)[number];

/** DRF-style field errors: `{"field": ["message"]}`. */
export type FieldErrors = Record<string, string[]>;
/** A field map keyed by what the client sent: no prototype, so a field named `constructor` is just a field. */
export const fieldErrorMap = (): FieldErrors => Object.create(null) as FieldErrors;
