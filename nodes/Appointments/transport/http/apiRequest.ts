/**
 * The transport's two ways to send: to an API path at the credential's base URL, or to an absolute link (a `next`)
 * refused unsent unless it has the credential's origin; every error leaving here is redacted. Retried: what was not
 * processed (429, 503, a refused connection) for every method, 500/502/504, resets and time-outs for idempotent ones,
 * with full-jitter backoff or `Retry-After`, all waits inside `maxWaitMs` (per request, or per list with `sharedWait`).
 * Under `leaveToRetryOnFail` (version 4) only a `Retry-After` is retried, and a lost answer only checked (`beforeRetry`).
 */
import {
	NodeOperationError,
	sleep,
	type IDataObject,
	type IHttpRequestMethods,
} from 'n8n-workflow';

import { apiError, seconds, type ErrorLabels } from './apiErrors.js';
import { buildApiUrl, originOf } from './apiUrls.js';
import {
	credentialInfo,
	resolvePolicy,
	type CredentialInfo,
	type RequestPolicy,
	type TransportContext,
} from './credentialInfo.js';
import { sendOnce, untrusted, type SendResult } from './httpAttempt.js';
import { redactError } from './redaction.js';

/** Shared by the pages of one list: a wait pauses them all, and `maxWaitMs` bounds their paused time, counted once. */
type SharedWait = { pausedUntil: number; waitedMs: number };

/** `allowStatus` statuses are returned, not thrown; `info` is the credential as the caller already read it (a list, once). */
export type SendOptions = ErrorLabels & {
	body?: IDataObject | IDataObject[];
	policy?: Partial<RequestPolicy>;
	allowStatus?: number[];
	sharedWait?: SharedWait;
	info?: CredentialInfo;
};

/** `afterAmbiguousFailure`: an earlier attempt failed in a way that may have been processed (time-out, reset, 5xx but 503). */
export type ApiResponse<T = IDataObject> = {
	statusCode: number;
	body: T | undefined;
	attempts: number;
	url: string;
	afterAmbiguousFailure?: boolean;
};

export type RetryBudget = { attempts: number; waitedMs: number; remainingMs: number };

/**
 * `beforeRetry` is asked before retrying an outcome that may have been processed: a response it returns ends the
 * request (the earlier attempt did the work); undefined sends again. It may wait, inside `remainingMs`, and may throw.
 */
export type RetryHooks = {
	retryable?: (outcome: SendResult) => boolean;
	beforeRetry?: (outcome: SendResult, budget: RetryBudget) => Promise<ApiResponse | undefined>;
};

function isRetryable(outcome: SendResult, idempotent: boolean): boolean {
	if (outcome.kind === 'network') return outcome.refused || idempotent;
	const { statusCode } = outcome;
	return [429, 503].includes(statusCode) || (idempotent && [500, 502, 504].includes(statusCode));
}

/** `Retry-After` in milliseconds: delta-seconds or HTTP-date (past dates give 0); undefined when absent/invalid. */
export function parseRetryAfter(value: unknown, nowMs: number = Date.now()): number | undefined {
	if (Array.isArray(value)) value = value[0];
	const text = typeof value === 'string' ? value.trim() : '';
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	// An HTTP-date (IMF-fixdate, RFC 850 or asctime) names a weekday or a month.
	const at = /[a-z]{3}/i.test(text) ? Date.parse(text) : NaN;
	return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** Exponential backoff with full jitter: uniform in [0, min(cap, base * 2^(attempt-1))]. attempt starts at 1. */
export function backoffDelay(
	attempt: number,
	baseDelayMs: number,
	capMs: number,
	random: () => number = Math.random,
): number {
	return Math.floor(random() * Math.min(capMs, baseDelayMs * 2 ** (attempt - 1)));
}

type Attempts = {
	ctx: TransportContext;
	info: CredentialInfo;
	method: IHttpRequestMethods;
	url: string;
	opts: SendOptions;
	hooks: RetryHooks;
	policy: RequestPolicy;
	wait: SharedWait;
};

/** The request's error; what was tried is said once more than one attempt was made or a retry was refused. */
function failure(r: Attempts, outcome: SendResult, attempts: number, reason?: string): Error {
	const tried =
		attempts > 1 || reason ? { attempts, waitedMs: r.wait.waitedMs, reason } : undefined;
	return apiError(r.ctx, r.info, outcome, { method: r.method, url: r.url }, r.opts, tried);
}

function retryAfterOf(outcome: SendResult): number | undefined {
	if (outcome.kind !== 'response') return undefined;
	return parseRetryAfter(outcome.headers['retry-after'] ?? outcome.headers['Retry-After']);
}

/** The wait before the next attempt; throws the request's error when there is none (not retryable, budget spent). */
function nextDelay(r: Attempts, outcome: SendResult, attempt: number): number {
	const retryable = r.hooks.retryable ?? ((o: SendResult) => isRetryable(o, r.method !== 'POST'));
	if (untrusted(outcome) || !retryable(outcome)) throw failure(r, outcome, attempt);
	if (attempt >= r.policy.maxAttempts) throw failure(r, outcome, attempt, 'no attempts left');
	const remaining = r.policy.maxWaitMs - r.wait.waitedMs;
	const retryAfter = retryAfterOf(outcome);
	if (retryAfter !== undefined && retryAfter <= remaining) return retryAfter;
	if (r.policy.leaveToRetryOnFail && retryAfter === undefined) {
		// What n8n's re-run cannot do: check what a lost answer did (at once), before anything is sent again.
		if (r.hooks.beforeRetry && mayHaveBeenProcessed(outcome)) return 0;
		throw failure(r, outcome, attempt);
	}
	if (retryAfter !== undefined) {
		const reason = `the service asked to retry after ${seconds(retryAfter)}, more than the ${seconds(Math.max(0, remaining))} left of the retry budget`;
		throw failure(r, outcome, attempt, reason);
	}
	if (remaining <= 0) throw failure(r, outcome, attempt, 'retry wait budget exhausted');
	return Math.min(remaining, backoffDelay(attempt, r.policy.baseDelayMs, r.policy.maxWaitMs));
}

/** An outcome the service may have processed (not a refused connection; a 5xx but 503): the caller may check first. */
function mayHaveBeenProcessed(outcome: SendResult): boolean {
	return outcome.kind === 'network'
		? !outcome.refused
		: outcome.statusCode >= 500 && outcome.statusCode !== 503;
}

function accepted<T>(outcome: SendResult, opts: SendOptions): ApiResponse<T> | undefined {
	if (outcome.kind !== 'response') return undefined;
	const { statusCode } = outcome;
	if ((statusCode < 200 || statusCode >= 300) && !opts.allowStatus?.includes(statusCode))
		return undefined;
	return { statusCode, body: outcome.body as T | undefined, attempts: 0, url: '' };
}

/** Pauses every request that shares `wait` for `delay`, counting only time not already paused. */
async function pause(wait: SharedWait, delay = 0): Promise<void> {
	const until = Date.now() + delay;
	wait.waitedMs += Math.max(0, until - Math.max(Date.now(), wait.pausedUntil));
	wait.pausedUntil = Math.max(wait.pausedUntil, until);
	if (wait.pausedUntil > Date.now()) await sleep(wait.pausedUntil - Date.now());
}

/** Sends until an answer is accepted, the outcome is not retryable, or the attempts or the wait budget run out. */
async function requestWithRetries<T>(r: Attempts): Promise<ApiResponse<T>> {
	let ambiguousBefore = false;
	for (let attempt = 1; ; attempt++) {
		await pause(r.wait);
		const outcome = await sendOnce(r.ctx, r.method, r.url, r.opts.body, r.policy.timeoutMs);
		const answer = accepted<T>(outcome, r.opts);
		if (answer) {
			const response = { ...answer, attempts: attempt, url: r.url };
			return ambiguousBefore ? { ...response, afterAmbiguousFailure: true } : response;
		}
		const delay = nextDelay(r, outcome, attempt);
		const failed = outcome.kind === 'network' ? outcome.code : `status ${outcome.statusCode}`;
		r.ctx.logger?.debug(
			`Appointments API: ${r.method} attempt ${attempt} failed (${failed}); retrying in ${delay} ms`,
		);
		await pause(r.wait, delay);
		if (!mayHaveBeenProcessed(outcome)) continue;
		ambiguousBefore = true;
		const { waitedMs } = r.wait;
		const budget = { attempts: attempt, waitedMs, remainingMs: r.policy.maxWaitMs - waitedMs };
		const done = await r.hooks.beforeRetry?.(outcome, budget);
		if (done) return { ...done, attempts: attempt } as ApiResponse<T>;
		if (r.policy.leaveToRetryOnFail && retryAfterOf(outcome) === undefined)
			throw failure(
				r,
				outcome,
				attempt,
				"not done, as a check showed; sending it again is left to n8n's Retry On Fail",
			);
	}
}

async function send<T>(
	ctx: TransportContext,
	method: IHttpRequestMethods,
	urlOf: (info: CredentialInfo) => string,
	opts: SendOptions,
	hooks: RetryHooks = {},
): Promise<ApiResponse<T>> {
	const info = opts.info ?? (await credentialInfo(ctx));
	let url: string;
	try {
		url = urlOf(info);
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), (error as Error).message, {
			itemIndex: opts.itemIndex,
		});
	}
	const origin = originOf(url);
	try {
		if (origin !== info.origin) {
			const message = `Refusing to send a request to ${origin ?? 'an invalid address'}: only the credential's origin ${info.origin} is allowed`;
			throw new NodeOperationError(ctx.getNode(), message, { itemIndex: opts.itemIndex });
		}
		const policy = resolvePolicy(opts.policy);
		const wait = opts.sharedWait ?? { pausedUntil: 0, waitedMs: 0 };
		return await requestWithRetries<T>({ ctx, info, method, url, opts, hooks, policy, wait });
	} catch (error) {
		// The URL and the answer are the service's: whatever error they made goes out redacted.
		throw redactError(error, info.secrets);
	}
}

/** A request to `/api/v3/<path>` at the credential's base URL; `path` ends with '/'. */
export async function apiRequest<T = IDataObject>(
	ctx: TransportContext,
	method: IHttpRequestMethods,
	path: string,
	opts: SendOptions & { qs?: IDataObject } = {},
	hooks?: RetryHooks,
): Promise<ApiResponse<T>> {
	const url = (info: CredentialInfo) => buildApiUrl(info.baseUrl, path, opts.qs);
	return await send<T>(ctx, method, url, opts, hooks);
}

/** A request to an absolute URL (a `next` link), refused without sending unless it has the base URL's origin. */
export async function apiRequestUrl<T = IDataObject>(
	ctx: TransportContext,
	method: IHttpRequestMethods,
	absoluteUrl: string,
	opts: SendOptions = {},
	hooks?: RetryHooks,
): Promise<ApiResponse<T>> {
	return await send<T>(ctx, method, () => absoluteUrl, opts, hooks);
}
