/**
 * checkEnvelope(body): undefined for a valid notification envelope (spec: "Notification envelope"), else a short
 * reason naming the field, never its value, so it can be logged and answered without personal data. Unnamed fields
 * are kept; strings are capped so a hostile body cannot grow the dedupe memory or the logs. Hand-written rather
 * than zod (test/trigger/envelope.test.ts checks it against a zod schema): bench part 3 bounds its cost.
 */
import { isObject } from '../shared/simplify.js';
import { canonicalUuid, UUID_EXPECTED } from '../shared/validation.js';

export const MAX_NAME = 200;
export const MAX_TEXT = 10000;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DDThh:mm[:ss[.fraction]]` followed by `Z` or `±hh:mm` (also `±hhmm`). */
const ISO_WITH_OFFSET =
	/^(\d{4})-(\d{2})-(\d{2})[Tt]([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:[.,]\d{1,9})?)?(?:[Zz]|[+-]([01]\d|2[0-3]):?[0-5]\d)$/;

/** An ISO 8601 date and time with a UTC offset (ISO_WITH_OFFSET) on a real calendar date. */
export function isIsoDateTimeWithOffset(value: unknown): boolean {
	const match = typeof value === 'string' ? ISO_WITH_OFFSET.exec(value) : null;
	if (!match) return false;
	const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
	if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]) return false;
	return month !== 2 || day !== 29 || (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0));
}

const absent = (value: unknown) => value === undefined || value === null;

function checkText(value: unknown, field: string, max = MAX_TEXT): string | undefined {
	if (typeof value !== 'string') return `${field} must be a string`;
	return value.length > max ? `${field} is longer than ${max} characters` : undefined;
}

function checkOptionalText(value: unknown, field: string): string | undefined {
	return absent(value) ? undefined : checkText(value, field);
}

function checkInstant(value: unknown, field: string): string | undefined {
	if (typeof value !== 'string') return `${field} must be a string`;
	return isIsoDateTimeWithOffset(value)
		? undefined
		: `${field} must be an ISO 8601 date and time with a UTC offset`;
}

export function checkEnvelope(body: unknown): string | undefined {
	if (!isObject(body)) return 'the body must be a JSON object';
	if (body.event === '') return 'event must not be empty';
	const problem =
		checkText(body.event, 'event', MAX_NAME) ?? checkInstant(body.timestamp, 'timestamp');
	if (problem !== undefined) return problem;
	const data = body.data;
	if (!isObject(data)) return 'data must be an object';
	// Checked as the action node checks an appointment's key: it goes into Verify With API's request path.
	if (canonicalUuid(data.appointment_key) === undefined)
		return `data.appointment_key must be ${UUID_EXPECTED}`;
	return (
		checkOptionalText(data.search_code, 'data.search_code') ??
		checkOptionalText(data.status, 'data.status') ??
		(absent(data.start_date) ? undefined : checkInstant(data.start_date, 'data.start_date')) ??
		checkOptionalObject(data.calendar, 'data.calendar', ['calendar_key', 'name']) ??
		checkOptionalObject(data.person, 'data.person', ['full_name', 'email'])
	);
}

/** An optional nested object (calendar, person) whose listed fields, when present, are text. */
function checkOptionalObject(value: unknown, label: string, fields: string[]): string | undefined {
	if (absent(value)) return undefined;
	if (!isObject(value)) return `${label} must be an object`;
	const problems = fields.map((field) => checkOptionalText(value[field], `${label}.${field}`));
	return problems.find((problem) => problem !== undefined);
}
