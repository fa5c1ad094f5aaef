/**
 * The notification envelope the service POSTs to a callback URL (spec: "Notification envelope").
 *
 *   checkEnvelope(body): string | undefined
 *       undefined when `body` is a valid envelope, else a short reason naming the field and what was expected
 *       (never the field's value, so a reason can be logged and answered without personal data).
 *   isIsoDateTimeWithOffset(value): boolean
 *
 * Rules: `event` a non-empty string; `timestamp` ISO 8601 date and time with a UTC offset (`Z` or ±hh:mm);
 * `data` an object with a non-empty string `appointment_key`. The other documented fields of `data`
 * (search_code, status, start_date, calendar {calendar_key, name}, person {full_name, email}) may be missing or
 * null, and when present must have their documented types. Fields the spec does not name are kept, never
 * rejected. Strings are capped (MAX_NAME for event and key, MAX_TEXT for the rest) so a hostile body cannot
 * make the dedupe memory or the logs grow without bound.
 *
 * Hand-written, not zod: a zod schema of the same rules (kept in test/trigger/envelope.test.ts as the reference
 * it is checked against) costs more than n8n's JSON.parse of the body, and webhook() may at most double the cost
 * of the parse (bench part 3; figures in docs/benchmarks.md).
 */
export const MAX_NAME = 200;
export const MAX_TEXT = 10000;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DDThh:mm[:ss[.fraction]]` followed by `Z` or `±hh:mm` (also `±hhmm`). */
const ISO_WITH_OFFSET = /^(\d{4})-(\d{2})-(\d{2})[Tt]([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d{1,9})?)?(?:[Zz]|[+-]([01]\d|2[0-3]):?[0-5]\d)$/;

/** An ISO 8601 date and time with a UTC offset (ISO_WITH_OFFSET) on a real calendar date. */
export function isIsoDateTimeWithOffset(value: unknown): boolean {
	const match = typeof value === 'string' ? ISO_WITH_OFFSET.exec(value) : null;
	if (!match) return false;
	const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
	if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]) return false;
	return month !== 2 || day !== 29 || (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

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
	return (
		checkOptionalObject(data.calendar, 'data.calendar', ['calendar_key', 'name']) ??
		checkOptionalObject(data.person, 'data.person', ['full_name', 'email'])
	);
}

/** An optional nested object (calendar, person) whose listed fields, when present, are text. */
function checkOptionalObject(value: unknown, label: string, fields: string[]): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (!isPlainObject(value)) return `${label} must be an object`;
	for (const field of fields) {
		const problem = checkOptionalText(value[field], `${label}.${field}`);
		if (problem !== undefined) return problem;
	}
	return undefined;
}
