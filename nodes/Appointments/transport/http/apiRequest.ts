/**
 * Requests with retries. 429 and 503 ("not processed") are retried for every method; 500/502/504, connection
 * resets and time-outs only for idempotent requests; a refused connection (nothing was sent) for every method.
 * Exponential backoff with full jitter, `Retry-After` (seconds or HTTP-date) honoured, all waits inside
 * `maxWaitMs` (per request, or per list with `sharedWait`); a `Retry-After` longer than what is left of that
 * budget fails at once, saying so.
 */
import { NodeOperationError, sleep, type IDataObject, type IHttpRequestMethods } from 'n8n-workflow';

import { sendOnce, type Outcome } from './httpAttempt';
import { credentialInfo, resolvePolicy, type CredentialInfo, type RequestPolicy, type TransportContext } from './credentialInfo';
import { apiError, seconds, type ErrorLabels } from './apiErrors';
import { backoffDelay, buildApiUrl, originOf, parseRetryAfter } from './apiUrls';

export interface ApiRequestOptions extends ErrorLabels {
	qs?: IDataObject;
	body?: IDataObject | IDataObject[];
	policy?: Partial<RequestPolicy>;
	/** Default: true for GET/PUT/PATCH/DELETE, false for POST. */
	idempotent?: boolean;
	/** Statuses returned to the caller instead of thrown (e.g. [404] for deletes). */
	allowStatus?: number[];
	/** Shared by the requests of one list, so pages in flight together wait and spend their budget as one. */
	sharedWait?: SharedWait;
}

/**
 * Retry waits of requests that run together: a wait (a `Retry-After` or a backoff) pauses every request that
 * shares it, and `maxWaitMs` bounds the time they spent paused, counted once, not per request.
 */
export interface SharedWait {
	/** No attempt starts before this time (ms since the epoch). */
	pausedUntil: number;
	waitedMs: number;
}

export interface ApiResponse<T = IDataObject> {
	statusCode: number;
	body: T | undefined;
	attempts: number;
	url: string;
	/** True when an earlier attempt failed in a way that may have been processed (time-out, reset, 5xx but 503). */
	afterAmbiguousFailure?: boolean;
}

/** What is left of a request's retry budget when `beforeRetry` is asked. */
export interface RetryBudget {
	attempts: number;
	waitedMs: number;
	remainingMs: number;
}

export interface RetryHooks {
	/** Decides whether an outcome is retried (default: the rules at the top of this file). */
	retryable?: (outcome: Outcome) => boolean;
	/**
	 * Called before a retry after an outcome that may have been processed (see isAmbiguous). A response ends the
	 * request with it (the earlier attempt did the work); undefined sends the request again. It may wait itself,
	 * inside `remainingMs`, and may throw.
	 */
	beforeRetry?: (outcome: Outcome, budget: RetryBudget) => Promise<ApiResponse | undefined>;
}

function isAmbiguous(outcome: Outcome): boolean {
	if (outcome.kind === 'network') return !outcome.refused;
	return outcome.statusCode >= 500 && outcome.statusCode !== 503;
}

function defaultRetryable(idempotent: boolean): (outcome: Outcome) => boolean {
	return (outcome) => {
		if (outcome.kind === 'network') return outcome.refused || idempotent;
		if (outcome.statusCode === 429 || outcome.statusCode === 503) return true;
		return idempotent && [500, 502, 504].includes(outcome.statusCode);
	};
}

async function requestWithRetries<T>(
	ctx: TransportContext,
	info: CredentialInfo,
	method: IHttpRequestMethods,
	url: string,
	opts: ApiRequestOptions,
	hooks: RetryHooks = {},
): Promise<ApiResponse<T>> {
	const policy = resolvePolicy(opts.policy);
	const retryable = hooks.retryable ?? defaultRetryable(opts.idempotent ?? method !== 'POST');
	const fail = (outcome: Outcome, attempts: number, waitedMs: number, reason?: string) =>
		apiError(ctx, info, outcome, { method, url }, opts, attempts > 1 || reason ? { attempts, waitedMs, reason } : undefined);
	const wait: SharedWait = opts.sharedWait ?? { pausedUntil: 0, waitedMs: 0 };
	let ambiguousBefore = false;
	for (let attempt = 1; ; attempt++) {
		const paused = wait.pausedUntil - Date.now();
		if (paused > 0) await sleep(paused);
		const outcome = await sendOnce(ctx, method, url, opts.body, policy.timeoutMs);
		const waitedMs = wait.waitedMs;
		if (outcome.kind === 'response') {
			const { statusCode } = outcome;
			if ((statusCode >= 200 && statusCode < 300) || opts.allowStatus?.includes(statusCode)) {
				return {
					statusCode,
					body: outcome.body as T | undefined,
					attempts: attempt,
					url,
					...(ambiguousBefore ? { afterAmbiguousFailure: true } : {}),
				};
			}
		}
		if (!retryable(outcome)) throw fail(outcome, attempt, waitedMs);
		if (attempt >= policy.maxAttempts) throw fail(outcome, attempt, waitedMs, 'no attempts left');
		const remaining = policy.maxWaitMs - waitedMs;
		const retryAfter =
			outcome.kind === 'response'
				? parseRetryAfter(outcome.headers['retry-after'] ?? outcome.headers['Retry-After'])
				: undefined;
		let delay: number;
		if (retryAfter !== undefined) {
			if (retryAfter > remaining) {
				throw fail(
					outcome,
					attempt,
					waitedMs,
					`the service asked to retry after ${seconds(retryAfter)}, more than the ${seconds(Math.max(0, remaining))} left of the retry budget`,
				);
			}
			delay = retryAfter;
		} else {
			if (remaining <= 0) throw fail(outcome, attempt, waitedMs, 'retry wait budget exhausted');
			delay = Math.min(remaining, backoffDelay(attempt, policy.baseDelayMs, policy.maxWaitMs));
		}
		const what = outcome.kind === 'network' ? outcome.code : `status ${outcome.statusCode}`;
		ctx.logger?.debug(`Appointments API: ${method} attempt ${attempt} failed (${what}); retrying in ${delay} ms`);
		const until = Date.now() + delay;
		wait.waitedMs += Math.max(0, until - Math.max(Date.now(), wait.pausedUntil));
		wait.pausedUntil = Math.max(wait.pausedUntil, until);
		if (wait.pausedUntil > Date.now()) await sleep(wait.pausedUntil - Date.now());
		if (isAmbiguous(outcome)) {
			ambiguousBefore = true;
			if (hooks.beforeRetry) {
				const done = await hooks.beforeRetry(outcome, {
					attempts: attempt,
					waitedMs: wait.waitedMs,
					remainingMs: policy.maxWaitMs - wait.waitedMs,
				});
				if (done) return { ...done, attempts: attempt } as ApiResponse<T>;
			}
		}
	}
}

async function checkedRequest<T>(
	ctx: TransportContext,
	info: CredentialInfo,
	method: IHttpRequestMethods,
	url: string,
	opts: ApiRequestOptions,
	hooks?: RetryHooks,
): Promise<ApiResponse<T>> {
	const origin = originOf(url);
	if (origin !== info.origin) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Refusing to send a request to ${origin ?? 'an invalid address'}: only the credential's origin ${info.origin} is allowed`,
			{ itemIndex: opts.itemIndex },
		);
	}
	return await requestWithRetries<T>(ctx, info, method, url, opts, hooks);
}

/** A request to `/api/v3/<path>` at the credential's base URL; `path` ends with '/'. */
export async function apiRequest<T = IDataObject>(
	ctx: TransportContext,
	method: IHttpRequestMethods,
	path: string,
	opts: ApiRequestOptions = {},
	hooks?: RetryHooks,
): Promise<ApiResponse<T>> {
	const info = await credentialInfo(ctx);
	let url: string;
	try {
		url = buildApiUrl(info.baseUrl, path, opts.qs);
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), (error as Error).message, { itemIndex: opts.itemIndex });
	}
	return await checkedRequest<T>(ctx, info, method, url, opts, hooks);
}

/** A request to an absolute URL (a `next` link), refused without sending unless it has the base URL's origin. */
export async function apiRequestUrl<T = IDataObject>(
	ctx: TransportContext,
	method: IHttpRequestMethods,
	absoluteUrl: string,
	opts: Omit<ApiRequestOptions, 'qs'> = {},
	hooks?: RetryHooks,
): Promise<ApiResponse<T>> {
	const info = await credentialInfo(ctx);
	return await checkedRequest<T>(ctx, info, method, absoluteUrl, opts, hooks);
}
