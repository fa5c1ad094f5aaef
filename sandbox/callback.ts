/**
 * One attempt at a callback: POST the envelope and say what came of it. `error` is null only for a 2xx answer the
 * service got; a time-out, a refused connection or a non-2xx answer is a failed attempt that the schedule retries.
 */
import { request, type Agent } from 'undici';

export interface CallbackOutcome {
	/** HTTP status of the answer, null when there was none (time-out, connection error) */
	status: number | null;
	error: string | null;
}

export async function postCallback(
	agent: Agent,
	job: { url: string; body: string; attempts: number },
	userAgent: string,
	timeout: number,
	failRate: number,
): Promise<CallbackOutcome> {
	try {
		const res = await request(job.url, {
			method: 'POST',
			body: job.body,
			headers: { 'content-type': 'application/json', 'user-agent': userAgent },
			dispatcher: agent,
			headersTimeout: timeout,
			bodyTimeout: timeout,
			signal: AbortSignal.timeout(timeout),
		});
		const status = res.statusCode;
		await res.body.dump({ limit: 65536 }).catch(() => undefined);
		if (status < 200 || status > 299) return { status, error: `HTTP ${status}` };
		// The receiver got it and answered, but the answer is lost: what makes a real service redeliver.
		if (job.attempts === 1 && failRate > 0 && Math.random() < failRate) {
			return { status, error: `HTTP ${status}, answer dropped (deliveryFailRate fault)` };
		}
		return { status, error: null };
	} catch (e) {
		const err = e as Error & { code?: string; cause?: Error & { code?: string } };
		if (
			err.name === 'TimeoutError' ||
			err.code === 'UND_ERR_HEADERS_TIMEOUT' ||
			err.code === 'UND_ERR_BODY_TIMEOUT'
		) {
			return { status: null, error: `timed out after ${timeout} ms` };
		}
		const code = err.code ?? err.cause?.code;
		const message = err.cause?.message ?? err.message;
		return { status: null, error: code ? `${code}: ${message}` : message };
	}
}
