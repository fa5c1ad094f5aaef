/**
 * "Verify with API"'s re-read is one short attempt (verify.test.ts has the rest of the option): a 503 is answered
 * 500 at once, an answer later than the trigger's fixed 4 s time-out is not waited for, and the service's resend is
 * the retry. Run by `npm run test:slow` (jest.slow.config.js), not `npm test`: it waits the 4 s time-out for real.
 */
import {
	ALL_EVENTS,
	admin,
	envelope,
	harness,
	reset,
	settledDeliveries,
	startsOf,
	useSandbox,
} from './common';

const ctx = useSandbox();

beforeEach(async () => {
	await reset(ctx);
});

describe('Verify with API', () => {
	it("the re-read is one attempt that gives up within 5 s; the service's resend is the retry", async () => {
		const h = await harness(ctx, {
			parameters: { events: ALL_EVENTS, options: { verifyWithApi: true } },
		});
		await h.activate();
		const created = await admin(ctx, 'POST', '/__sandbox/appointments/', {});
		await settledDeliveries(ctx, h.productionUrl, 1);
		const update = envelope(
			{ event: 'appointment.updated' },
			{ appointment_key: created.appointment_key },
		);
		// A 503 that a retry would get past: answered 500 at once instead.
		await admin(ctx, 'POST', '/__sandbox/faults/', {
			count: 1,
			status: 503,
			match: { method: 'GET', path: '/api/v3/appointments/*' },
		});
		expect((await h.callWebhook(update)).status).toBe(500);
		// An answer that would come after 5.5 s is not waited for.
		await admin(ctx, 'POST', '/__sandbox/faults/', {
			count: 1,
			delayMs: 5500,
			match: { method: 'GET', path: '/api/v3/appointments/*' },
		});
		expect((await h.callWebhook(update)).status).toBe(500);
		expect(h.errors.map((e) => e.message)).toEqual([
			expect.stringContaining(`Could not verify appointment ${created.appointment_key}`),
			expect.stringContaining(`Could not verify appointment ${created.appointment_key}`),
		]);
		expect(startsOf(h).filter((j) => j.event === 'appointment.updated')).toHaveLength(0);
		// Nothing was remembered: the resend starts the workflow, once.
		expect((await h.callWebhook(update)).items).toHaveLength(1);
		expect((await h.callWebhook(update)).body).toMatchObject({ reason: 'duplicate' });
		expect(startsOf(h).filter((j) => j.event === 'appointment.updated')).toHaveLength(1);
	}, 30000);
});
