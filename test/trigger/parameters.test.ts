/**
 * A notification the trigger cannot evaluate, because one of its parameters cannot be read when it arrives (an
 * expression whose value changed, a value an older version saved), is never acknowledged: 503, so the service
 * resends it, nothing started or remembered, and an error in n8n's log naming the field as the editor labels it.
 * Publishing such parameters is refused: lifecycle.test.ts.
 */
import {
	ALL_EVENTS,
	admin,
	envelope,
	harness,
	post,
	reset,
	settledDeliveries,
	startsOf,
	useSandbox,
} from './common';
import { pollUntil } from '../helpers/trigger';

const ctx = useSandbox();

const settled = (url: string, atLeast: number) => settledDeliveries(ctx, url, atLeast);

beforeEach(async () => {
	await reset(ctx);
});

describe('parameters that cannot be read at delivery time', () => {
	it('a delivery the trigger could not evaluate is answered 503; the service resends it and, once the field is fixed, it runs once', async () => {
		await admin(ctx, 'POST', '/__sandbox/config/', { retrySchedule: [1000, 1000, 1000] });
		const base = { events: ALL_EVENTS, otherEvents: '', options: {} };
		const h = await harness(ctx, { parameters: base });
		await h.activate();
		h.setParameters({ ...base, filters: { statuses: '={{ ["CONFIRMD"] }}' } });
		const created = await admin(ctx, 'POST', '/__sandbox/appointments/', {});
		await pollUntil('the first attempt answered', () => h.responses.length > 0);
		h.setParameters(base);
		const delivered = await settled(h.productionUrl, 1);
		expect(delivered.map((d) => d.status)).toEqual([503, 200]);
		expect(startsOf(h).map((j) => j.data.appointment_key)).toEqual([created.appointment_key]);
	});

	// Valid when published, then no longer: an expression whose value changed, or a value an older version saved.
	const base = { events: ALL_EVENTS, otherEvents: '', filters: {}, options: {} };
	// [what is wrong, the field as the editor labels it, the saved parameters that differ]
	const unreadable: Array<[string, string, Record<string, unknown>]> = [
		['an event name that is none', 'Events', { events: '={{ ["appointment created"] }}' }],
		[
			'a number, while Other Events names one',
			'Events',
			{ events: '={{ 5 }}', otherEvents: 'appointment.created' },
		],
		['an event name that is none', 'Other Events', { otherEvents: '={{ "appointment created" }}' }],
		[
			'a status that is none',
			'Filters › Statuses',
			{ filters: { statuses: '={{ ["CONFIRMD"] }}' } },
		],
		[
			'a calendar key that is none',
			'Filters › Calendars',
			{
				filters: {
					calendars: { calendar: [{ calendar: { __rl: true, mode: 'id', value: 'dr-ruiz' } }] },
				},
			},
		],
		['a number', 'Filters › Statuses', { filters: { statuses: '={{ 5 }}' } }],
		[
			'an expression n8n cannot evaluate',
			'Filters',
			{ filters: { statuses: '={{ $("No Such Node").item.json.status }}' } },
		],
		[
			'a value that is not a choice',
			'Options › Dedupe Key',
			{ options: { dedupeKey: '={{ "bogus" }}' } },
		],
		['a window of 0', 'Options › Dedupe Window', { options: { dedupeWindow: '={{ 0 }}' } }],
		['"yes"', 'Options › Verify With API', { options: { verifyWithApi: '={{ "yes" }}' } }],
		['"sometimes"', 'Options › Simplify', { options: { simplify: '={{ "sometimes" }}' } }],
		['an expression with a syntax error', 'Options', { options: { dedupeKey: '={{ [ }}' } }],
	];

	it.each(unreadable)(
		'%s in "%s": answered 503 (the service resends), nothing started or remembered, n8n logs the field at error level',
		async (_what, label, change) => {
			const h = await harness(ctx, { parameters: base });
			await h.activate();
			h.setParameters({ ...base, ...change });
			const body = envelope();
			const answer = await post(h.productionUrl, JSON.stringify(body));
			expect(answer.status).toBe(503);
			expect(answer.body).toMatchObject({
				received: true,
				started: false,
				reason: 'not evaluated',
			});
			expect(h.starts).toHaveLength(0);
			const lines = h.logs().filter((l) => l.includes('could not evaluate'));
			expect(lines).toHaveLength(1);
			expect(lines[0]).toMatch(/^\[error\]/);
			expect(lines[0]).toContain(`"${label}"`);
			expect(lines[0]).toContain(body.data.appointment_key);
			expect(lines[0]).not.toMatch(/Marta|Quiroga|example\.org|QX7-204|Dr\. Ruiz/);
			// Fixed: the resend runs, once.
			h.setParameters(base);
			expect((await post(h.productionUrl, JSON.stringify(body))).status).toBe(200);
			expect((await post(h.productionUrl, JSON.stringify(body))).body).toMatchObject({
				reason: 'duplicate',
			});
			expect(h.starts).toHaveLength(1);
		},
	);
});
