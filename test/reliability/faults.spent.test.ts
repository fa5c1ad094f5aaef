/**
 * Once the retry budget is spent, every operation of the real Appointments action node fails with an error saying
 * what was tried, also as a continue-on-fail item, and a request the service rejected changed nothing. The operations, fixture and sandbox they run on: faults.ts.
 */
import { CANCELED, OPERATIONS, out, ownSandbox, prepare, run, useFaultSandbox } from './faults';

// Each case runs on a sandbox of its own (its fault matches every request), so the cases run at the same time.
useFaultSandbox();

// The budgets are set with versions 1-3's Max Attempts and Max Retry Wait; version 4 spends its fixed one the same way.
describe('a spent retry budget', () => {
	// `rejected`: the service answered without doing anything (a slow answer may still have been processed);
	// `attempts`: the requests a read (Get) sent before giving up: the budget is spent, never exceeded, and a
	// Retry-After beyond the budget fails at once instead of waiting
	const SPENT: Array<{
		name: string;
		spec: Record<string, unknown>;
		options: Record<string, unknown>;
		message: RegExp;
		rejected?: boolean;
		attempts?: number;
	}> = [
		{
			name: '502 every time',
			spec: { status: 502 },
			options: { maxAttempts: 3 },
			message:
				/The service failed \(502 Bad Gateway\) after 3 attempts \(waited [\d.]+ s in total; no attempts left\)/,
			rejected: true,
			attempts: 3,
		},
		{
			name: '503 every time',
			spec: { status: 503 },
			options: { maxAttempts: 2 },
			message: /The service failed \(503 Service Unavailable\) after 2 attempts/,
			rejected: true,
			attempts: 2,
		},
		{
			name: '429 asking for more than the budget',
			spec: { status: 429, retryAfter: '90' },
			options: { maxRetryWaitSeconds: 5 },
			message:
				/rate limiting.*after 1 attempt.*retry after 90 s, more than the 5\.0 s left of the retry budget/,
			rejected: true,
			attempts: 1,
		},
		{
			name: 'time-out every time',
			spec: { delayMs: 1500 },
			options: { maxAttempts: 2, timeoutSeconds: 0.5 },
			message: /Could not reach the service: the request timed out after 2 attempts/,
		},
	];
	it.concurrent.each(SPENT)(
		'$name: every operation fails with an error saying what was tried, also as a continue-on-fail item',
		async (spent) => {
			const sb = await ownSandbox();
			const f = await prepare(spent.name.replace(/\W+/g, '-'), sb);
			await sb.fault({ count: 1000, ...spent.spec, match: {} });
			const results = await Promise.all(
				OPERATIONS.map(async (op) => ({
					op,
					r: await run({ ...op.parameters(f), advanced: spent.options }, false, 3, sb),
				})),
			);
			for (const { op, r } of results) {
				expect({ op: op.name, message: r.error?.message }).toEqual({
					op: op.name,
					message: expect.stringMatching(spent.message),
				});
			}
			if (spent.attempts !== undefined) {
				const read = OPERATIONS.find((op) => op.name === 'appointment get')!;
				const sent = (await sb.requests()).filter(
					(q) => q.method === 'GET' && q.path === read.path(f),
				);
				expect(sent).toHaveLength(spent.attempts);
			}
			// the same failure as an item when the node continues on fail
			const continued = await Promise.all(
				OPERATIONS.map(async (op) => ({
					op,
					r: await run({ ...op.parameters(f), advanced: spent.options }, true, 3, sb),
				})),
			);
			for (const { op, r } of continued) {
				expect({ op: op.name, error: r.error?.message }).toEqual({ op: op.name, error: undefined });
				const items = out(r);
				expect(items).toHaveLength(1);
				expect({ op: op.name, item: String(items[0].error ?? items[0].message ?? '') }).toEqual({
					op: op.name,
					item: expect.stringMatching(spent.message),
				});
			}
			await sb.clearFaults();
			if (!spent.rejected) return;
			// nothing was changed by the failed runs: no subscription was created, the appointments kept their state
			expect((await sb.webhooks()).filter((w) => w.url === f.createUrl)).toHaveLength(0);
			expect((await sb.appointment(f.keys.update)).status).not.toBe('ATTENDED');
			expect(CANCELED).not.toContain((await sb.appointment(f.keys.cancel)).status);
		},
	);
});
