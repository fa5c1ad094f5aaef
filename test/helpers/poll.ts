/**
 * Polling a condition with a bounded deadline (never a fixed sleep), written once for the test suites:
 *
 *   poll(what, check, accept, { timeoutMs, intervalMs, describe })
 *     calls `check` every `intervalMs` until `accept(value)` holds and resolves that value; a throw of `check`
 *     counts as "not yet"; after `timeoutMs` it rejects with describe(what, timeoutMs, { last, lastError }) as the
 *     message: `last` is the last outcome (a refused value or an error), `lastError` the last error thrown.
 *
 * The suites' own pollUntil/waitFor are thin wrappers that choose `accept` and the message.
 */
export interface PollOptions {
	timeoutMs: number;
	intervalMs: number;
	/** The message of the time-out error. */
	describe: (
		what: string,
		timeoutMs: number,
		seen: { last: unknown; lastError: unknown },
	) => string;
}

export async function poll<T>(
	what: string,
	check: () => Promise<unknown> | unknown,
	accept: (value: unknown) => boolean,
	{ timeoutMs, intervalMs, describe }: PollOptions,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let last: unknown;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await check();
			if (accept(value)) return value as T;
			last = value;
		} catch (error) {
			last = error;
			lastError = error;
		}
		if (Date.now() > deadline) throw new Error(describe(what, timeoutMs, { last, lastError }));
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}
