/**
 * The trigger's hand-written envelope check against a zod/v4 reference schema written from the spec: the same
 * verdict on documented examples, on edge cases and on thousands of random bodies; reasons name the field and
 * never echo a value.
 */
import fc from 'fast-check';
import { z } from 'zod/v4';

import {
	checkEnvelope,
	isIsoDateTimeWithOffset,
	MAX_NAME,
	MAX_TEXT,
} from '../../nodes/Appointments/trigger/envelope';

// A quarter of the random cases under npm test, all under CHAOS_FULL=1 (npm run test:chaos); FC_SEED replays a run.
const FULL = process.env.CHAOS_FULL === '1';
const TIMESTAMP_RUNS = FULL ? 20_000 : 5_000;
const SEED = process.env.FC_SEED
	? Number(process.env.FC_SEED)
	: Math.floor(Math.random() * 2 ** 31);
beforeAll(() => console.log(`envelope properties: FC_SEED=${SEED} replays this run`));

// The reference: the spec's envelope, as the node would check it with zod (too slow for webhook(), see envelope.ts).
const name = z.string().min(1).max(MAX_NAME);
const optionalText = z.string().max(MAX_TEXT).nullish();
const isoWithOffset = z
	.string()
	.refine(isIsoDateTimeWithOffset, 'ISO 8601 date and time with a UTC offset');
// The key as the action node reads one: a UUID, hyphenated or as 32 hex digits, around spaces.
const uuid = z
	.string()
	.trim()
	.pipe(z.union([z.guid(), z.string().regex(/^[0-9a-f]{32}$/i)]));
const envelopeSchema = z.looseObject({
	event: name,
	timestamp: isoWithOffset,
	data: z.looseObject({
		appointment_key: uuid,
		search_code: optionalText,
		status: optionalText,
		start_date: isoWithOffset.nullish(),
		calendar: z.looseObject({ calendar_key: optionalText, name: optionalText }).nullish(),
		person: z.looseObject({ full_name: optionalText, email: optionalText }).nullish(),
	}),
});

// Made-up identifiers (the secret-detection rule mistakes *_key fields for credentials).
/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets */
const KEY = '0b7a2c1e99994222833344445555aaaa';
const valid = () => ({
	event: 'appointment.created',
	timestamp: '2026-11-23T10:15:00-03:00',
	data: {
		appointment_key: '6f1c2a9e-1234-4bcd-9ef0-0123456789ab',
		search_code: 'ABC123',
		status: 'CONFIRMED',
		start_date: '2026-11-24T09:00:00-03:00',
		calendar: { calendar_key: '0b7a2c1e-1111-4222-8333-444455556666', name: 'Dr. Ruiz' },
		person: { full_name: 'Ana Pérez', email: 'ana.perez@example.com' },
	},
});
/* eslint-enable @n8n/community-nodes/no-hardcoded-secrets */

function agree(body: unknown): string | undefined {
	const reason = checkEnvelope(body);
	const zod = envelopeSchema.safeParse(body);
	expect({ body, handWritten: reason === undefined }).toEqual({ body, handWritten: zod.success });
	return reason;
}

describe('timestamps', () => {
	it.each([
		'2026-11-23T10:15:00-03:00',
		'2026-11-23T10:15:00Z',
		'2026-11-23T10:15:00.123456+05:30',
		'2026-11-23T10:15-03:00',
		'2024-02-29T00:00:00+00:00',
		'2026-11-23T23:59:59+0100',
	])('accepts %s', (value) => expect(isIsoDateTimeWithOffset(value)).toBe(true));

	it.each([
		'2026-11-23T10:15:00', // no offset: which instant is it?
		'2026-11-23 10:15:00Z',
		'2026-11-23',
		'2026-13-01T00:00:00Z',
		'2026-02-29T00:00:00Z',
		'2026-04-31T00:00:00Z',
		'2026-11-23T24:00:00Z',
		'2026-11-23T10:60:00Z',
		'2026-11-23T10:15:00+24:00',
		'1700000000',
		'',
	])('refuses %s', (value) => expect(isIsoDateTimeWithOffset(value)).toBe(false));

	// The hand-written parser against a plain regex + calendar reference, on strings built around the format.
	const REFERENCE =
		/^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(?:[Zz]|[+-](\d{2}):?(\d{2}))$/;
	function reference(value: string): boolean {
		if (value.length > 40) return false;
		const m = REFERENCE.exec(value);
		if (!m) return false;
		const [y, mo, d, h, mi] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
		const days = [
			31,
			y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28,
			31,
			30,
			31,
			30,
			31,
			31,
			30,
			31,
			30,
			31,
		];
		if (mo < 1 || mo > 12 || d < 1 || d > days[mo - 1] || h > 23 || mi > 59) return false;
		if (m[6] !== undefined && Number(m[6]) > 59) return false;
		if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
		return true;
	}

	it(`agrees with a regex reference on ${TIMESTAMP_RUNS} generated strings`, () => {
		const d = (n: number) =>
			fc.integer({ min: 0, max: 10 ** n - 1 }).map((v) => String(v).padStart(n, '0'));
		const piece = fc.oneof(
			d(1),
			d(2),
			d(3),
			fc.constantFrom('-', ':', 'T', 't', 'Z', 'z', '+', '.', ',', ' ', 'x', ''),
		);
		// Mostly near-valid values, so that each rule is exercised at its edges.
		const n2 = (max: number) =>
			fc.oneof(
				fc.integer({ min: 0, max }).map((v) => String(v).padStart(2, '0')),
				d(2),
			);
		const shaped = fc
			.tuple(
				fc.oneof(fc.constantFrom('2024', '2026', '1900', '2000', '2100'), d(4)),
				fc.constantFrom('-', '-', '/'),
				n2(13),
				fc.constantFrom('-'),
				n2(32),
				fc.constantFrom('T', 't', ' '),
				n2(25),
				fc.constantFrom(':'),
				n2(61),
				fc.oneof(
					fc.constant(''),
					n2(61).map((v) => ':' + v),
				),
				fc.oneof(
					fc.constant(''),
					fc
						.integer({ min: 0, max: 11 })
						.chain((n) =>
							n === 0
								? fc.constant('.')
								: d(n).map((v) => fc.sample(fc.constantFrom('.', ','), 1)[0] + v),
						),
				),
				fc.oneof(
					fc.constantFrom('Z', 'z', '', '+', '-0'),
					fc
						.tuple(fc.constantFrom('+', '-'), n2(25), fc.constantFrom(':', ''), n2(61))
						.map((p) => p.join('')),
				),
				fc.oneof(
					fc.constant(''),
					fc.array(piece, { maxLength: 2 }).map((p) => p.join('')),
				),
			)
			.map((p) => p.join(''));
		fc.assert(
			fc.property(
				fc.oneof(shaped, fc.string({ maxLength: 45 })),
				(value) => isIsoDateTimeWithOffset(value) === reference(value),
			),
			{ numRuns: TIMESTAMP_RUNS, seed: SEED },
		);
	});
});

describe('checkEnvelope', () => {
	it('accepts the documented envelope and one with only the key, and keeps extra fields', () => {
		expect(agree(valid())).toBeUndefined();
		expect(
			agree({ event: 'x.y', timestamp: '2026-01-01T00:00:00Z', data: { appointment_key: KEY } }),
		).toBeUndefined();
		const extra = {
			...valid(),
			delivery_id: 7,
			data: { ...valid().data, notes: 'x', calendar: { ...valid().data.calendar, color: 'red' } },
		};
		expect(agree(extra)).toBeUndefined();
		expect(envelopeSchema.parse(extra)).toMatchObject({
			delivery_id: 7,
			data: { notes: 'x', calendar: { color: 'red' } },
		});
	});

	it('accepts null for the optional documented fields', () => {
		expect(
			agree({
				...valid(),
				data: {
					appointment_key: KEY,
					search_code: null,
					status: null,
					start_date: null,
					calendar: null,
					person: null,
				},
			}),
		).toBeUndefined();
	});

	const cases: Array<[string, (b: ReturnType<typeof valid>) => unknown, RegExp]> = [
		['not an object', () => [valid()], /body must be a JSON object/],
		['null', () => null, /body must be a JSON object/],
		['a string', () => 'appointment.created', /body must be a JSON object/],
		['event missing', (b) => ({ ...b, event: undefined }), /^event must be a string/],
		['event empty', (b) => ({ ...b, event: '' }), /^event must not be empty/],
		['event too long', (b) => ({ ...b, event: 'e'.repeat(MAX_NAME + 1) }), /^event is longer/],
		['event a number', (b) => ({ ...b, event: 5 }), /^event must be a string/],
		[
			'timestamp without offset',
			(b) => ({ ...b, timestamp: '2026-11-23T10:15:00' }),
			/^timestamp must be an ISO 8601 date and time with a UTC offset/,
		],
		['timestamp epoch', (b) => ({ ...b, timestamp: 1763900000 }), /^timestamp must be a string/],
		['data missing', (b) => ({ ...b, data: undefined }), /^data must be an object/],
		['data an array', (b) => ({ ...b, data: [b.data] }), /^data must be an object/],
		[
			'key missing',
			(b) => ({ ...b, data: { ...b.data, appointment_key: undefined } }),
			/^data.appointment_key must be a UUID/,
		],
		[
			'key a number',
			(b) => ({ ...b, data: { ...b.data, appointment_key: 12 } }),
			/^data.appointment_key must be a UUID/,
		],
		[
			'key a path',
			(b) => ({ ...b, data: { ...b.data, appointment_key: '../webhooks' } }),
			/^data.appointment_key must be a UUID/,
		],
		[
			'key a search code',
			(b) => ({ ...b, data: { ...b.data, appointment_key: 'QX7-204' } }),
			/^data.appointment_key must be a UUID/,
		],
		[
			'status a number',
			(b) => ({ ...b, data: { ...b.data, status: 3 } }),
			/^data.status must be a string/,
		],
		[
			'start_date without offset',
			(b) => ({ ...b, data: { ...b.data, start_date: '2026-11-24T09:00:00' } }),
			/^data.start_date must be an ISO 8601/,
		],
		[
			'calendar a string',
			(b) => ({ ...b, data: { ...b.data, calendar: 'Dr. Ruiz' } }),
			/^data.calendar must be an object/,
		],
		[
			'calendar name a number',
			(b) => ({ ...b, data: { ...b.data, calendar: { name: 1 } } }),
			/^data.calendar.name must be a string/,
		],
		[
			'person email an object',
			(b) => ({ ...b, data: { ...b.data, person: { email: {} } } }),
			/^data.person.email must be a string/,
		],
		[
			'person an array',
			(b) => ({ ...b, data: { ...b.data, person: [] } }),
			/^data.person must be an object/,
		],
	];
	it.each(cases)('refuses a body with %s, naming the field', (_name, make, reason) => {
		const body = make(valid());
		const problem = agree(body);
		expect(problem).toMatch(reason);
		// A reason is logged and sent back: it must not carry the personal data of the body.
		expect(problem).not.toMatch(/Ana|example\.com|ABC123/);
	});

	it('agrees with the zod schema on random bodies', () => {
		const iso = fc.oneof(
			fc
				.date({ min: new Date('1990-01-01'), max: new Date('2090-01-01'), noInvalidDate: true })
				.map((d) => d.toISOString()),
			fc.constantFrom(
				'2026-11-23T10:15:00-03:00',
				'2026-11-23T10:15:00',
				'2026-02-30T00:00:00Z',
				'2026-11-23T10:15+05:30',
				'x',
			),
			fc.string(),
		);
		const text = fc.oneof(
			fc.string(),
			fc.constant(null),
			fc.constant(undefined),
			fc.integer(),
			fc.string({ minLength: 0, maxLength: 3 }),
		);
		const anything = fc.anything({ maxDepth: 2 });
		const body = fc.record(
			{
				event: fc.oneof(
					fc.constantFrom('appointment.created', 'appointment.canceled', ''),
					fc.string(),
					anything,
				),
				timestamp: fc.oneof(iso, anything),
				data: fc.oneof(
					fc.record(
						{
							appointment_key: fc.oneof(
								fc.uuid(),
								fc.uuid().map((u) => ` ${u.replace(/-/g, '')}`),
								fc.string(),
								anything,
							),
							search_code: text,
							status: text,
							start_date: fc.oneof(iso, fc.constant(null), anything),
							calendar: fc.oneof(
								fc.record({ calendar_key: text, name: text }, { requiredKeys: [] }),
								fc.constant(null),
								anything,
							),
							person: fc.oneof(
								fc.record({ full_name: text, email: text }, { requiredKeys: [] }),
								fc.constant(null),
								anything,
							),
							extra: anything,
						},
						{ requiredKeys: [] },
					),
					anything,
				),
				extra: anything,
			},
			{ requiredKeys: [] },
		);
		fc.assert(
			fc.property(fc.oneof(body, anything), (b) => {
				const reason = checkEnvelope(b);
				return (reason === undefined) === envelopeSchema.safeParse(b).success;
			}),
			{ numRuns: FULL ? 5000 : 1250, seed: SEED },
		);
	});
});
