/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any -- test code, never shipped: it starts servers, reads the environment and handles arbitrary JSON from the sandbox and run data */
/**
 * Property-based envelope tests of the real Appointments Trigger (fast-check), activated against the sandbox in the
 * trigger harness (n8n-core's WebhookContext): random notification bodies (wrong types, missing fields, huge
 * strings, deep nesting, extra fields, odd timestamps), most of them through the in-process `callWebhook`, a few
 * hundred over real HTTPS to the harness receiver (invalid JSON, wrong content types, 1 MB bodies, deep nesting).
 *
 * An oracle written from the spec classifies each body:
 *   - invalid (not an object; event, timestamp, data or data.appointment_key missing or of the wrong type; an
 *     appointment_key that is not a UUID; a timestamp that is not an ISO 8601 date-time with offset; a documented
 *     field of the wrong JSON type):
 *     answered 400 and no workflow starts;
 *   - valid: answered 200; the workflow starts once with the envelope iff the event is subscribed;
 *   - open (the spec is silent: null or missing documented fields, very long strings, an unparseable start_date):
 *     400 without a start, or 200 as for a valid body.
 * Never 500, never an error thrown by webhook(). >= 5,000 cases under `npm test`, 50,000 under `npm run test:chaos`.
 * fast-check prints the seed on failure; FC_SEED=<seed> replays it.
 */
import { request } from 'node:https';

import fc from 'fast-check';

import { startTriggerHarness, receiverCa, type TriggerHarness } from '../helpers/trigger';
import { FULL, TestSandbox, TOKEN } from './common';

const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : undefined;
const IN_PROCESS_RUNS = FULL ? 50_000 : 5_000;
const HTTPS_RUNS = FULL ? 1_000 : 200;
const SUBSCRIBED = ['appointment.created', 'appointment.updated'];

let sb: TestSandbox;
let h: TriggerHarness;

beforeAll(async () => {
	sb = await TestSandbox.start({ ca: receiverCa(), seed: 5 });
	h = await startTriggerHarness({
		credentials: { baseUrl: sb.url, accessToken: TOKEN },
		parameters: { events: SUBSCRIBED, otherEvents: '', options: { dedupeKey: 'off' } },
	});
	await h.activate();
	expect((await sb.webhooks()).filter((w) => w.url === h.productionUrl)).toHaveLength(1);
});

afterAll(async () => {
	await h?.deactivate();
	await h?.close();
	await sb?.close();
});

// ---------------------------------------------------------------------------------------------------------------
// Bodies and what the spec says about them

type Verdict = 'valid' | 'invalid' | 'open';
interface Body {
	body: unknown;
	verdict: Verdict;
	why: string[];
}

const worst = (a: Verdict, b: Verdict): Verdict =>
	a === 'invalid' || b === 'invalid' ? 'invalid' : a === 'open' || b === 'open' ? 'open' : 'valid';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const isoWithOffset = fc
	.tuple(
		fc.integer({ min: 1990, max: 2060 }),
		fc.integer({ min: 1, max: 12 }),
		fc.integer({ min: 1, max: 28 }),
		fc.integer({ min: 0, max: 23 }),
		fc.integer({ min: 0, max: 59 }),
		fc.integer({ min: 0, max: 59 }),
		fc.constantFrom('Z', '+00:00', '-03:00', '+05:45', '-09:30', '+14:00'),
		fc.constantFrom('', '.000', '.123', '.5'),
	)
	.map(
		([y, mo, d, h_, mi, s, off, frac]) =>
			`${y}-${pad(mo)}-${pad(d)}T${pad(h_)}:${pad(mi)}:${pad(s)}${frac}${off}`,
	);

const shortText = fc.string({ maxLength: 60 });
const unicodeText = fc.string({ maxLength: 60, unit: 'binary' });
const wrongType = fc.oneof(
	fc.integer(),
	fc.double({ noNaN: true, noDefaultInfinity: true }),
	fc.boolean(),
	fc.constant([]),
	fc.constant(['x']),
	fc.constant({}),
	fc.constant({ a: 'b' }),
);
const longText = (min: number, max: number) => fc.integer({ min, max }).map((n) => 'x'.repeat(n));

/** Deeply nested extra data: arrays or objects `depth` levels deep. */
const deep = fc.tuple(fc.integer({ min: 10, max: 3000 }), fc.boolean()).map(([depth, arrays]) => {
	let v: unknown = 'leaf';
	for (let i = 0; i < depth; i++) v = arrays ? [v] : { n: v };
	return v;
});

const validEnvelope = fc.record({
	event: fc.oneof(
		{ weight: 4, arbitrary: fc.constantFrom(...SUBSCRIBED, 'appointment.canceled') },
		{ weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
	),
	timestamp: isoWithOffset,
	data: fc.record({
		appointment_key: fc.uuid(),
		search_code: shortText,
		status: fc.constantFrom('CONFIRMED', 'PENDING', 'CANCELED', 'ATTENDED', 'NO_SHOW'),
		start_date: isoWithOffset,
		calendar: fc.record({ calendar_key: fc.uuid(), name: unicodeText }),
		person: fc.record({ full_name: unicodeText, email: fc.emailAddress() }),
	}),
});

/** One change to a valid envelope, with the spec's verdict. `path` '' is the whole body. */
interface Mutation {
	path: string;
	apply: (b: any) => void;
	verdict: Verdict;
	why: string;
}

function set(obj: any, path: string, value: unknown, remove = false): void {
	const parts = path.split('.');
	let cur = obj;
	for (const p of parts.slice(0, -1)) {
		if (cur === null || typeof cur !== 'object') return;
		cur = cur[p];
	}
	if (cur === null || typeof cur !== 'object') return;
	const last = parts[parts.length - 1];
	if (remove) delete cur[last];
	else cur[last] = value;
}

const m = (
	path: string,
	verdict: Verdict,
	why: string,
	value?: unknown,
	remove = false,
): Mutation => ({
	path,
	verdict,
	why,
	apply: (b) => set(b, path, value, remove),
});

const NAME_FIELDS = ['event', 'data.appointment_key'];
const TEXT_FIELDS = [
	'data.search_code',
	'data.status',
	'data.calendar.calendar_key',
	'data.calendar.name',
	'data.person.full_name',
	'data.person.email',
];
const OBJECT_FIELDS = ['data.calendar', 'data.person'];

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
	// the whole body
	fc
		.oneof(
			fc.constant(null),
			fc.constant([]),
			fc.string(),
			fc.integer(),
			fc.boolean(),
			fc.constant([{ event: 'appointment.created' }]),
		)
		.map(
			(v) =>
				({
					path: '',
					verdict: 'invalid' as Verdict,
					why: `body ${JSON.stringify(v)?.slice(0, 30)}`,
					apply: () => undefined,
					replace: v,
				}) as Mutation,
		),
	// event and appointment_key: required non-empty strings
	fc
		.tuple(fc.constantFrom(...NAME_FIELDS), fc.oneof(wrongType, fc.constant(null)))
		.map(([p, v]) => m(p, 'invalid', `${p} = ${JSON.stringify(v)}`, v)),
	fc.constantFrom(...NAME_FIELDS).map((p) => m(p, 'invalid', `${p} missing`, undefined, true)),
	fc.constantFrom(...NAME_FIELDS).map((p) => m(p, 'invalid', `${p} empty`, '')),
	fc
		.tuple(fc.constantFrom(...NAME_FIELDS), longText(201, 20000))
		.map(([p, v]) => m(p, p === 'event' ? 'open' : 'invalid', `${p} ${v.length} chars`, v)),
	// appointment_key: a UUID, as the action node reads one (it goes into Verify With API's request path)
	fc
		.oneof(
			fc
				.string({ minLength: 1, maxLength: 50 })
				.filter((v) => !/^\s*[0-9a-f-]{32,36}\s*$/i.test(v)),
			fc.constantFrom('../webhooks', '..%2Fwebhooks', 'QX7-204', '?page=2'),
		)
		.map((v) => m('data.appointment_key', 'invalid', `appointment_key ${JSON.stringify(v)}`, v)),
	// timestamp: required ISO 8601 date-time with offset
	fc.constant(m('timestamp', 'invalid', 'timestamp missing', undefined, true)),
	fc
		.oneof(wrongType, fc.constant(null), fc.integer({ min: 0, max: 2e12 }))
		.map((v) => m('timestamp', 'invalid', `timestamp ${JSON.stringify(v)}`, v)),
	isoWithOffset
		.map((v) => v.replace(/(Z|[+-]\d\d:\d\d)$/, ''))
		.map((v) => m('timestamp', 'invalid', `timestamp without offset ${v}`, v)),
	fc
		.constantFrom(
			'yesterday',
			'',
			'now',
			'2026-02-30T10:00:00Z',
			'2026-13-01T10:00:00Z',
			'2026-11-23',
			'23/11/2026 10:00',
			'T10:00:00Z',
			'2026-11-23T25:00:00Z',
		)
		.map((v) => m('timestamp', 'invalid', `timestamp ${v}`, v)),
	fc
		.constantFrom(
			'2026-11-23T10:00Z',
			'2026-11-23t10:00:00z',
			'2026-11-23T10:00:00.123456789+01:00',
			'2026-11-23T10:00:00+0100',
			'2026-11-23 10:00:00Z',
			'+002026-11-23T10:00:00Z',
			'2026-W48-1T10:00:00Z',
			'20261123T100000Z',
		)
		.map((v) => m('timestamp', 'open', `timestamp ${v}`, v)),
	// data: a required object
	fc.constant(m('data', 'invalid', 'data missing', undefined, true)),
	fc
		.oneof(
			fc.constant(null),
			fc.string(),
			fc.integer(),
			fc.constant([]),
			fc.constant([{ appointment_key: 'k' }]),
		)
		.map((v) => m('data', 'invalid', `data ${JSON.stringify(v)}`, v)),
	// documented text fields
	fc
		.tuple(fc.constantFrom(...TEXT_FIELDS), wrongType)
		.map(([p, v]) => m(p, 'invalid', `${p} = ${JSON.stringify(v)}`, v)),
	fc.constantFrom(...TEXT_FIELDS).map((p) => m(p, 'open', `${p} missing`, undefined, true)),
	fc.constantFrom(...TEXT_FIELDS).map((p) => m(p, 'open', `${p} null`, null)),
	fc
		.tuple(fc.constantFrom(...TEXT_FIELDS), longText(10001, 40000))
		.map(([p, v]) => m(p, 'open', `${p} ${v.length} chars`, v)),
	fc
		.tuple(fc.constantFrom(...TEXT_FIELDS), unicodeText)
		.map(([p, v]) => m(p, 'valid', `${p} other text`, v)),
	// start_date: documented as ISO 8601 with offset
	fc
		.oneof(fc.integer(), fc.boolean(), fc.constant({}), fc.constant([]))
		.map((v) => m('data.start_date', 'invalid', `start_date ${JSON.stringify(v)}`, v)),
	fc
		.constantFrom('soon', '2026-11-23', '2026-11-23T10:00:00', '')
		.map((v) => m('data.start_date', 'open', `start_date ${v}`, v)),
	fc
		.constantFrom(null, undefined)
		.map((v) => m('data.start_date', 'open', `start_date ${String(v)}`, v, v === undefined)),
	// calendar and person: documented objects
	fc
		.tuple(
			fc.constantFrom(...OBJECT_FIELDS),
			fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant([])),
		)
		.map(([p, v]) => m(p, 'invalid', `${p} = ${JSON.stringify(v)}`, v)),
	fc
		.tuple(fc.constantFrom(...OBJECT_FIELDS), fc.constantFrom(null, undefined))
		.map(([p, v]) => m(p, 'open', `${p} ${String(v)}`, v, v === undefined)),
	// extra fields are kept, never a reason to refuse: big, deep, odd
	fc
		.tuple(
			fc.constantFrom(
				'extra',
				'data.extra',
				'data.calendar.extra',
				'data.person.extra',
				'__proto__x',
				'constructor',
			),
			fc.oneof(deep, longText(1, 200_000), wrongType, fc.constant(null)),
		)
		.map(([p, v]) => m(p, 'valid', `extra ${p}`, v)),
);

const body: fc.Arbitrary<Body> = fc
	.tuple(validEnvelope, fc.uniqueArray(mutation, { maxLength: 3, selector: (x) => x.path }))
	.map(([env, mutations]) => {
		const b: any = JSON.parse(JSON.stringify(env));
		let verdict: Verdict = 'valid';
		const why: string[] = [];
		const whole = mutations.find((x) => x.path === '');
		if (whole)
			return {
				body: (whole as Mutation & { replace: unknown }).replace,
				verdict: 'invalid',
				why: [whole.why],
			};
		// a change below a field that another change replaced does not count
		const replaced = mutations
			.filter(
				(x) =>
					x.verdict === 'invalid' ||
					x.why.endsWith('missing') ||
					x.why.endsWith('null') ||
					x.why.endsWith('undefined'),
			)
			.map((x) => x.path);
		for (const x of mutations) {
			if (replaced.some((p) => p !== x.path && x.path.startsWith(p + '.'))) continue;
			x.apply(b);
			verdict = worst(verdict, x.verdict);
			why.push(x.why);
		}
		return { body: b, verdict, why };
	});

// ---------------------------------------------------------------------------------------------------------------

function expectAnswer(
	c: Body,
	status: number,
	started: number,
	startedItems: unknown[] | undefined,
	label: string,
): void {
	const where = () =>
		`${label} ${c.verdict} [${c.why.join('; ')}] ${JSON.stringify(c.body)?.slice(0, 300)}`;
	if (status >= 500 || status < 200) throw new Error(`answered ${status}: ${where()}`);
	if (c.verdict === 'invalid' || (c.verdict === 'open' && status === 400)) {
		if (status !== 400 && status !== 422)
			throw new Error(`expected 400, got ${status}: ${where()}`);
		if (started !== 0) throw new Error(`an invalid body started the workflow: ${where()}`);
		return;
	}
	if (status !== 200) throw new Error(`expected 200, got ${status}: ${where()}`);
	const env = c.body as { event: string; data: { appointment_key: string } };
	const shouldStart = SUBSCRIBED.includes(env.event);
	if (started !== (shouldStart ? 1 : 0))
		throw new Error(
			`${started} starts for a ${shouldStart ? '' : 'not '}subscribed event: ${where()}`,
		);
	if (shouldStart) {
		const json = (startedItems?.[0] as { json: any })?.json;
		if (
			startedItems?.length !== 1 ||
			json?.event !== env.event ||
			json?.data?.appointment_key !== env.data.appointment_key
		) {
			throw new Error(
				`the workflow got ${JSON.stringify(startedItems)?.slice(0, 200)}: ${where()}`,
			);
		}
	}
}

describe('random envelope bodies through the trigger (in process)', () => {
	it(`answer 400 or accept, never 500, and start a workflow only for a valid subscribed event (${IN_PROCESS_RUNS} cases)`, async () => {
		const counts: Record<Verdict, number> = { valid: 0, invalid: 0, open: 0 };
		await fc.assert(
			fc.asyncProperty(body, async (c) => {
				const before = h.starts.length;
				const result = await h.callWebhook(c.body);
				const started = h.starts.length - before;
				expectAnswer(
					c,
					result.status,
					started,
					started ? h.starts[h.starts.length - 1].items : undefined,
					'in process',
				);
				counts[c.verdict]++;
			}),
			{ numRuns: IN_PROCESS_RUNS, seed: SEED, endOnFailure: true },
		);
		expect(h.errors).toEqual([]);
		// the generator really produced all three kinds, in useful numbers
		expect(counts.valid).toBeGreaterThan(IN_PROCESS_RUNS / 10);
		expect(counts.invalid).toBeGreaterThan(IN_PROCESS_RUNS / 4);
		expect(counts.open).toBeGreaterThan(IN_PROCESS_RUNS / 20);
	});
});

// ---------------------------------------------------------------------------------------------------------------
// Over real HTTPS to the receiver (as the service would send them)

function post(
	url: string,
	payload: string | Buffer,
	contentType: string | undefined,
): Promise<{ status: number; text: string }> {
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{
				method: 'POST',
				ca: h.ca,
				headers: {
					...(contentType ? { 'content-type': contentType } : {}),
					'content-length': Buffer.byteLength(payload),
				},
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (c: Buffer) => chunks.push(c));
				res.on('end', () =>
					resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
				);
			},
		);
		req.on('error', reject);
		req.end(payload);
	});
}

const rawCase = fc.oneof(
	{
		weight: 6,
		arbitrary: body.map((c) => ({
			c,
			payload: JSON.stringify(c.body) ?? 'null',
			type: 'application/json',
		})),
	},
	// not JSON at all, or JSON cut short
	{
		weight: 2,
		arbitrary: fc.tuple(validEnvelope, fc.integer({ min: 1, max: 50 })).map(([env, cut]) => ({
			c: { body: undefined, verdict: 'invalid' as Verdict, why: ['truncated JSON'] },
			payload: JSON.stringify(env).slice(0, -cut),
			type: 'application/json',
		})),
	},
	{
		weight: 1,
		arbitrary: fc
			.constantFrom('{', '{"event":', "{'event':'x'}", 'NaN', '{"a":1,}', '\u0000', '<xml/>')
			.map((p) => ({
				c: { body: undefined, verdict: 'invalid' as Verdict, why: ['invalid JSON'] },
				payload: p,
				type: 'application/json',
			})),
	},
	// a valid envelope with the wrong content type: no JSON body reaches the node
	{
		weight: 2,
		arbitrary: fc
			.tuple(
				validEnvelope,
				fc.constantFrom(
					'text/plain',
					'application/x-www-form-urlencoded',
					'application/xml',
					undefined,
				),
			)
			.map(([env, type]) => ({
				c: { body: {}, verdict: 'invalid' as Verdict, why: [`content type ${String(type)}`] },
				payload: JSON.stringify(env),
				type,
			})),
	},
);

describe('random envelope bodies over real HTTPS', () => {
	it(`answer 400 (422 for unparseable JSON, n8n's own parser) or accept, never 500 (${HTTPS_RUNS} cases)`, async () => {
		await fc.assert(
			fc.asyncProperty(rawCase, async ({ c, payload, type }) => {
				const before = h.starts.length;
				const res = await post(h.productionUrl, payload, type);
				const started = h.starts.length - before;
				expectAnswer(
					c as Body,
					res.status,
					started,
					started ? h.starts[h.starts.length - 1].items : undefined,
					`https ${String(type)}`,
				);
			}),
			{ numRuns: HTTPS_RUNS, seed: SEED, endOnFailure: true },
		);
		expect(h.errors).toEqual([]);
	});

	it('1 MB bodies: a valid envelope with a 1 MB extra field starts the workflow once; 1 MB of junk is refused', async () => {
		const big = {
			event: 'appointment.created',
			timestamp: '2026-11-23T10:00:00-03:00',
			data: {
				appointment_key: 'b16b16b1-0000-4000-8000-000000000001',
				search_code: 'B1',
				status: 'CONFIRMED',
				start_date: '2026-11-24T10:00:00-03:00',
				calendar: { calendar_key: 'c', name: 'n' },
				person: { full_name: 'p', email: 'p@example.com' },
			},
			extra: 'y'.repeat(1024 * 1024),
		};
		const before = h.starts.length;
		let res = await post(h.productionUrl, JSON.stringify(big), 'application/json');
		expect(res.status).toBe(200);
		expect(h.starts.length - before).toBe(1);
		expect((h.starts[h.starts.length - 1].items[0].json as any).data.appointment_key).toBe(
			'b16b16b1-0000-4000-8000-000000000001',
		);
		// a 1 MB appointment key or event name, a 1 MB timestamp, 1 MB of nested arrays, 1 MB of non-JSON
		const junk: Array<[string, string]> = [
			[
				JSON.stringify({
					...big,
					extra: undefined,
					data: { ...big.data, appointment_key: 'k'.repeat(1024 * 1024) },
				}),
				'application/json',
			],
			[
				JSON.stringify({ ...big, extra: undefined, event: 'e'.repeat(1024 * 1024) }),
				'application/json',
			],
			[
				JSON.stringify({ ...big, extra: undefined, timestamp: '2'.repeat(1024 * 1024) }),
				'application/json',
			],
			['['.repeat(512 * 1024) + ']'.repeat(512 * 1024), 'application/json'],
			['x'.repeat(1024 * 1024), 'application/json'],
			['x'.repeat(1024 * 1024), 'text/plain'],
		];
		for (const [payload, type] of junk) {
			const b = h.starts.length;
			res = await post(h.productionUrl, payload, type);
			expect({ size: payload.length, status: [400, 422].includes(res.status) }).toEqual({
				size: payload.length,
				status: true,
			});
			expect(h.starts.length - b).toBe(0);
		}
		expect(h.errors).toEqual([]);
	});

	it('deeply nested extra data (10,000 levels) is kept or refused, never a 500', async () => {
		let nested = '"leaf"';
		for (let i = 0; i < 10000; i++) nested = `{"n":${nested}}`;
		const payload = `{"event":"appointment.created","timestamp":"2026-11-23T10:00:00Z","data":{"appointment_key":"dee9dee9-0000-4000-8000-000000000001","extra":${nested}}}`;
		const before = h.starts.length;
		const res = await post(h.productionUrl, payload, 'application/json');
		expect([200, 400, 422]).toContain(res.status);
		expect(h.starts.length - before).toBe(res.status === 200 ? 1 : 0);
		expect(h.errors).toEqual([]);
	});
});
