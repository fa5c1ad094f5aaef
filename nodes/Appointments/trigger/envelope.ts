/**
 * The notification envelope the service POSTs to a callback URL (spec: "Notification envelope").
 *
 *   envelopeSchema                       zod (v4 API) schema: the reference definition, used in tests and docs
 *   type Envelope                        { event, timestamp, data: { appointment_key, ... }, ...extra }
 *   checkEnvelope(body): string | undefined
 *       The receiving hot path: undefined when `body` is a valid envelope, else a short reason naming the field
 *       and what was expected (never the field's value, so a reason can be logged and answered without
 *       personal data). Accepts exactly what `envelopeSchema` accepts (a property test holds them together);
 *       it is hand-written because webhook() is benchmarked against a bare JSON.parse and zod costs about as
 *       much as the parse itself.
 *   isIsoDateTimeWithOffset(value): boolean
 *
 * Rules: `event` a non-empty string; `timestamp` ISO 8601 date and time with a UTC offset (`Z` or ±hh:mm);
 * `data` an object with a non-empty string `appointment_key`. The other documented fields of `data`
 * (search_code, status, start_date, calendar {calendar_key, name}, person {full_name, email}) may be missing or
 * null, and when present must have their documented types. Fields the spec does not name are kept, never
 * rejected. Strings are capped (MAX_NAME for event and key, MAX_TEXT for the rest) so a hostile body cannot
 * make the dedupe memory or the logs grow without bound.
 */
import { z } from 'zod/v4';

export const MAX_NAME = 200;
export const MAX_TEXT = 10000;

/** `YYYY-MM-DDThh:mm[:ss[.fraction]]` followed by `Z` or `±hh:mm` (also `±hhmm`). */
const ISO_OFFSET =
	/^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(?:[Zz]|[+-](\d{2}):?(\d{2}))$/;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function isIsoDateTimeWithOffset(value: unknown): boolean {
	if (typeof value !== 'string' || value.length > 40) return false;
	const m = ISO_OFFSET.exec(value);
	if (m === null) return false;
	const year = +m[1];
	const month = +m[2];
	const day = +m[3];
	if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]) return false;
	if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) return false;
	if (+m[4] > 23 || +m[5] > 59) return false;
	if (m[6] !== undefined && +m[6] > 59) return false;
	if (m[7] !== undefined && (+m[7] > 23 || +m[8] > 59)) return false;
	return true;
}

const name = z.string().min(1).max(MAX_NAME);
const text = z.string().max(MAX_TEXT);
const optionalText = text.nullish();
const isoWithOffset = z.string().refine(isIsoDateTimeWithOffset, 'ISO 8601 date and time with a UTC offset');

export const envelopeSchema = z.looseObject({
	event: name,
	timestamp: isoWithOffset,
	data: z.looseObject({
		appointment_key: name,
		search_code: optionalText,
		status: optionalText,
		start_date: isoWithOffset.nullish(),
		calendar: z.looseObject({ calendar_key: optionalText, name: optionalText }).nullish(),
		person: z.looseObject({ full_name: optionalText, email: optionalText }).nullish(),
	}),
});

export type Envelope = z.infer<typeof envelopeSchema>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** undefined when valid; else why not. Mirrors `envelopeSchema` (see the header). */
function checkOptionalText(value: unknown, field: string): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string') return `${field} must be a string`;
	if (value.length > MAX_TEXT) return `${field} is longer than ${MAX_TEXT} characters`;
	return undefined;
}

function checkName(value: unknown, field: string): string | undefined {
	if (typeof value !== 'string') return `${field} must be a string`;
	if (value.length === 0) return `${field} must not be empty`;
	if (value.length > MAX_NAME) return `${field} is longer than ${MAX_NAME} characters`;
	return undefined;
}

export function checkEnvelope(body: unknown): string | undefined {
	if (!isPlainObject(body)) return 'the body must be a JSON object';
	const eventProblem = checkName(body.event, 'event');
	if (eventProblem !== undefined) return eventProblem;
	const timestamp = body.timestamp;
	if (typeof timestamp !== 'string') return 'timestamp must be a string';
	if (!isIsoDateTimeWithOffset(timestamp)) {
		return 'timestamp must be an ISO 8601 date and time with a UTC offset';
	}
	const data = body.data;
	if (!isPlainObject(data)) return 'data must be an object';
	const keyProblem = checkName(data.appointment_key, 'data.appointment_key');
	if (keyProblem !== undefined) return keyProblem;
	const problem = checkOptionalText(data.search_code, 'data.search_code') ?? checkOptionalText(data.status, 'data.status');
	if (problem !== undefined) return problem;
	const start = data.start_date;
	if (start !== undefined && start !== null) {
		if (typeof start !== 'string') return 'data.start_date must be a string';
		if (!isIsoDateTimeWithOffset(start)) {
			return 'data.start_date must be an ISO 8601 date and time with a UTC offset';
		}
	}
	const calendar = data.calendar;
	if (calendar !== undefined && calendar !== null) {
		if (!isPlainObject(calendar)) return 'data.calendar must be an object';
		const p =
			checkOptionalText(calendar.calendar_key, 'data.calendar.calendar_key') ??
			checkOptionalText(calendar.name, 'data.calendar.name');
		if (p !== undefined) return p;
	}
	const person = data.person;
	if (person !== undefined && person !== null) {
		if (!isPlainObject(person)) return 'data.person must be an object';
		const p =
			checkOptionalText(person.full_name, 'data.person.full_name') ??
			checkOptionalText(person.email, 'data.person.email');
		if (p !== undefined) return p;
	}
	return undefined;
}
