/**
 * What every user expects of the node when the service or an item fails: retries on 429/503 inside the Options'
 * budget, and Continue On Fail turning a failing item into { error } paired with it. A spent budget and a
 * Retry-After beyond it: test/reliability/faults.spent.test.ts.
 */
import { useBehaviourSandbox } from './behaviourSandbox';
import { apiRequests, pairing, run, type Admin, type Sandbox } from './helpers';

let sb: Sandbox;
let admin: Admin;
let keys: string[];

useBehaviourSandbox((started) => ({ sb, admin, keys } = started));

const FAST = { maxAttempts: 3, maxRetryWaitSeconds: 2 };

describe('retries', () => {
	test.each([429, 503])(
		'an injected %s is retried (Retry-After honoured) and the item succeeds',
		async (status) => {
			await admin.fault({ status, count: 2, retryAfter: '0', match: { method: 'GET' } });
			const result = await run(sb, {
				resource: 'appointment',
				operation: 'get',
				appointmentKey: keys[2],
				advanced: FAST,
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0][0].json.appointment_key).toBe(keys[2]);
			expect((await apiRequests(admin)).map((r) => r.status)).toEqual([status, status, 200]);
		},
	);

	test('a PATCH is retried on 503 and applied once', async () => {
		await admin.fault({ status: 503, count: 1, match: { method: 'PATCH' } });
		const result = await run(sb, {
			resource: 'appointment',
			operation: 'updateStatus',
			appointmentKey: keys[2],
			status: 'NO_SHOW',
			advanced: FAST,
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0][0].json.status).toBe('NO_SHOW');
		expect((await apiRequests(admin, 'PATCH')).map((r) => r.status)).toEqual([503, 200]);
	});
});

describe('continue on fail', () => {
	test('a failing item becomes { error } paired with it; the others go on', async () => {
		const result = await run(
			sb,
			{ resource: 'appointment', operation: 'get', appointmentKey: '={{ $json.key }}' },
			{
				continueOnFail: true,
				input: [
					{ key: keys[0] },
					{ key: 'not-a-key' },
					{ key: '00000000-0000-4000-8000-000000000000' },
					{ key: keys[3] },
				],
			},
		);
		expect(result.error).toBeUndefined();
		const items = result.items[0];
		expect(items.map((i) => i.json)).toEqual([
			expect.objectContaining({ appointment_key: keys[0] }),
			{ error: expect.stringMatching(/^The field "Appointment" \(item 1\) must be a UUID/) },
			{ error: 'Appointment 00000000-0000-4000-8000-000000000000 not found' },
			expect.objectContaining({ appointment_key: keys[3] }),
		]);
		expect(pairing(items)).toEqual([0, 1, 2, 3]);
		// The malformed item sent nothing.
		expect((await apiRequests(admin)).map((r) => r.path)).toEqual([
			`/api/v3/appointments/${keys[0]}/`,
			'/api/v3/appointments/00000000-0000-4000-8000-000000000000/',
			`/api/v3/appointments/${keys[3]}/`,
		]);
	});

	test('without it, the first failing item stops the node with its error', async () => {
		const result = await run(
			sb,
			{ resource: 'appointment', operation: 'get', appointmentKey: '={{ $json.key }}' },
			{
				input: [
					{ key: keys[0] },
					{ key: '00000000-0000-4000-8000-000000000000' },
					{ key: keys[2] },
				],
			},
		);
		expect(result.error?.message).toBe(
			'Appointment 00000000-0000-4000-8000-000000000000 not found',
		);
		expect(await apiRequests(admin)).toHaveLength(2);
	});
});
