/**
 * HTTP transport of the Appointments nodes. The one place that speaks HTTP.
 *
 *   type TransportContext = IExecuteFunctions | IHookFunctions | IWebhookFunctions | ILoadOptionsFunctions | IPollFunctions
 *   interface RequestPolicy { maxAttempts: number; maxWaitMs: number; timeoutMs: number; baseDelayMs: number }
 *   const DEFAULT_POLICY: RequestPolicy            // { maxAttempts: 5, maxWaitMs: 60000, timeoutMs: 30000, baseDelayMs: 500 }
 *   interface ApiRequestOptions {
 *     qs?: IDataObject; body?: IDataObject | IDataObject[]; itemIndex?: number; policy?: Partial<RequestPolicy>;
 *     resource?: string;        // label for messages: 404 -> "<resource> not found", 403 -> "... permission for <resource>"
 *     idempotent?: boolean;     // default: true for GET/PUT/PATCH/DELETE, false for POST
 *     allowStatus?: number[];   // statuses returned to the caller instead of thrown (e.g. [404] for deletes)
 *   }
 *   interface ApiResponse<T = IDataObject> { statusCode: number; body: T | undefined; attempts: number; url: string }
 *   apiRequest<T>(ctx, method, path, opts?): Promise<ApiResponse<T>>        path relative to /api/v3/, ends with '/'
 *   apiRequestUrl<T>(ctx, method, absoluteUrl, opts?): Promise<ApiResponse<T>>  same-origin check first (next links)
 *   getBaseUrl(ctx): Promise<string>                // normalised credential base URL, cached per ctx
 *   resolvePolicy(partial?): RequestPolicy
 *   policyFromOptions(options?: IDataObject): Partial<RequestPolicy>
 *     maps the node's "Options" collection (maxAttempts, maxRetryWaitSeconds, timeoutSeconds) to a policy
 *
 * Query arrays are encoded as repeated parameters (`tag_keys=a&tag_keys=b`), built here, not by the HTTP library.
 *
 * Retries: 429 and 503 ("not processed") for every method; 500/502/504, connection resets and time-outs only
 * for idempotent requests; a refused connection (nothing was sent) for every method. Exponential backoff with full
 * jitter, `Retry-After` (seconds or HTTP-date) honoured, all waits inside `maxWaitMs`. A `Retry-After` longer than
 * the remaining budget fails at once with a message saying so.
 *
 * Errors are NodeApiError/NodeOperationError built here from the status and parsed body only: no HTTP library
 * error (which carries the request headers, i.e. the token) is ever passed on, and the token is redacted from
 * every message and description.
 */
import {
	NodeApiError,
	NodeOperationError,
	sleep,
	type IDataObject,
	type IExecuteFunctions,
	type IHookFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IPollFunctions,
	type IWebhookFunctions,
	type JsonObject,
} from 'n8n-workflow';

import {
	backoffDelay,
	buildApiUrl,
	formatErrorBody,
	normaliseBaseUrl,
	originOf,
	parseRetryAfter,
	rawBodyText,
	redact,
} from './utils';

export type TransportContext =
	| IExecuteFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ILoadOptionsFunctions
	| IPollFunctions;

export interface RequestPolicy {
	/** Attempts in total, first one included. */
	maxAttempts: number;
	/** Total time spent waiting between attempts. */
	maxWaitMs: number;
	/** Time-out of a single attempt. */
	timeoutMs: number;
	/** First backoff ceiling; doubles each attempt. */
	baseDelayMs: number;
}

export const DEFAULT_POLICY: RequestPolicy = Object.freeze({
	maxAttempts: 5,
	maxWaitMs: 60000,
	timeoutMs: 30000,
	baseDelayMs: 500,
}) as RequestPolicy;

export interface ApiRequestOptions {
	qs?: IDataObject;
	body?: IDataObject | IDataObject[];
	itemIndex?: number;
	policy?: Partial<RequestPolicy>;
	resource?: string;
	idempotent?: boolean;
	allowStatus?: number[];
}

export interface ApiResponse<T = IDataObject> {
	statusCode: number;
	body: T | undefined;
	attempts: number;
	url: string;
	/** True when an earlier attempt failed in a way that may have been processed (time-out, reset, 5xx but 503). */
	afterAmbiguousFailure?: boolean;
}

export const CREDENTIAL_NAME = 'appointmentsApi';

export function resolvePolicy(partial?: Partial<RequestPolicy>): RequestPolicy {
	const pick = (value: unknown, fallback: number, min: number) =>
		typeof value === 'number' && Number.isFinite(value) && value >= min ? value : fallback;
	return {
		maxAttempts: Math.floor(pick(partial?.maxAttempts, DEFAULT_POLICY.maxAttempts, 1)),
		maxWaitMs: pick(partial?.maxWaitMs, DEFAULT_POLICY.maxWaitMs, 0),
		timeoutMs: pick(partial?.timeoutMs, DEFAULT_POLICY.timeoutMs, 1),
		baseDelayMs: pick(partial?.baseDelayMs, DEFAULT_POLICY.baseDelayMs, 0),
	};
}

/** The node's "Options" collection (`maxAttempts`, `maxRetryWaitSeconds`, `timeoutSeconds`) as a policy. */
export function policyFromOptions(options?: IDataObject): Partial<RequestPolicy> {
	const policy: Partial<RequestPolicy> = {};
	const num = (value: unknown) =>
		typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
	const attempts = num(options?.maxAttempts);
	if (Number.isFinite(attempts) && attempts >= 1) policy.maxAttempts = Math.floor(attempts);
	const wait = num(options?.maxRetryWaitSeconds);
	if (Number.isFinite(wait) && wait >= 0) policy.maxWaitMs = wait * 1000;
	const timeout = num(options?.timeoutSeconds);
	if (Number.isFinite(timeout) && timeout > 0) policy.timeoutMs = timeout * 1000;
	return policy;
}

interface CredentialInfo {
	baseUrl: string;
	origin: string;
	secrets: string[];
}

const credentialCache = new WeakMap<object, Promise<CredentialInfo>>();

async function loadCredentialInfo(ctx: TransportContext): Promise<CredentialInfo> {
	const credentials = await ctx.getCredentials(CREDENTIAL_NAME);
	const baseUrl = normaliseBaseUrl(String(credentials?.baseUrl ?? ''));
	const origin = originOf(baseUrl);
	if (!baseUrl || !origin || !/^https?:$/.test(new URL(baseUrl).protocol)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The credential's Base URL "${baseUrl}" is not a valid http(s) address`,
		);
	}
	const token = credentials?.accessToken;
	return { baseUrl, origin, secrets: typeof token === 'string' ? [token] : [] };
}

function credentialInfo(ctx: TransportContext): Promise<CredentialInfo> {
	let info = credentialCache.get(ctx);
	if (!info) {
		info = loadCredentialInfo(ctx);
		credentialCache.set(ctx, info);
		info.catch(() => credentialCache.delete(ctx));
	}
	return info;
}

/** The credential's base URL, normalised (no trailing slash, no `/api/v3`). Read once per ctx. */
export async function getBaseUrl(ctx: TransportContext): Promise<string> {
	return (await credentialInfo(ctx)).baseUrl;
}

// ---------------------------------------------------------------------------------------------------------
// One attempt

export type Outcome =
	| { kind: 'response'; statusCode: number; headers: IDataObject; body: unknown }
	| { kind: 'network'; code: string; timedOut: boolean; refused: boolean; detail: string };

const NETWORK_CODES = [
	'ECONNRESET',
	'ECONNREFUSED',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EAI_AGAIN',
	'ENOTFOUND',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'UND_ERR_SOCKET',
	'UND_ERR_CONNECT_TIMEOUT',
	'UND_ERR_HEADERS_TIMEOUT',
	'UND_ERR_BODY_TIMEOUT',
	'ERR_CANCELED',
];

/** Finds a network error code in an error (walking cause/errorResponse/reason), reading only code and message. */
function classifyThrown(error: unknown): Outcome & { kind: 'network' } {
	const seen = new Set<unknown>();
	const queue: unknown[] = [error];
	let code = '';
	let timedOut = false;
	const messages: string[] = [];
	while (queue.length && seen.size < 20) {
		const current = queue.shift();
		if (!current || typeof current !== 'object' || seen.has(current)) continue;
		seen.add(current);
		const e = current as Record<string, unknown>;
		if (typeof e.code === 'string' && !code && NETWORK_CODES.includes(e.code)) code = e.code;
		if (typeof e.message === 'string') messages.push(e.message);
		for (const key of ['cause', 'errorResponse', 'reason', 'error']) {
			try {
				if (e[key] && typeof e[key] === 'object') queue.push(e[key]);
			} catch {
				// a getter that throws: skip it
			}
		}
	}
	const text = messages.join(' | ');
	if (!code) {
		const match = NETWORK_CODES.find((c) => text.includes(c));
		if (match) code = match;
	}
	if (/timeout|timed out/i.test(text) || ['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNABORTED'].includes(code)) {
		timedOut = true;
	}
	if (code === 'ECONNABORTED' && !timedOut) timedOut = true;
	if (!code) code = timedOut ? 'ETIMEDOUT' : 'EUNKNOWN';
	const refused = code === 'ECONNREFUSED';
	let detail: string;
	if (timedOut) detail = 'the request timed out';
	else if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') detail = 'the connection was reset';
	else if (refused) detail = 'the connection was refused';
	else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') detail = 'the host name could not be resolved';
	else if (code === 'EUNKNOWN') detail = 'the request failed without a response';
	else detail = `the request failed (${code})`;
	return { kind: 'network', code, timedOut, refused, detail };
}

async function sendOnce(
	ctx: TransportContext,
	method: IHttpRequestMethods,
	url: string,
	body: IDataObject | IDataObject[] | undefined,
	timeoutMs: number,
): Promise<Outcome> {
	const options: IHttpRequestOptions = {
		method,
		url,
		headers: { Accept: 'application/json' },
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		sendCredentialsOnCrossOriginRedirect: false,
		timeout: timeoutMs,
	};
	if (body !== undefined) {
		options.body = body;
		(options.headers as IDataObject)['Content-Type'] = 'application/json';
	}
	try {
		const response = (await ctx.helpers.httpRequestWithAuthentication.call(
			ctx,
			CREDENTIAL_NAME,
			options,
		)) as { statusCode?: number; status?: number; headers?: IDataObject; body?: unknown };
		const statusCode = Number(response?.statusCode ?? response?.status ?? 0);
		let parsed: unknown = response?.body;
		if (typeof parsed === 'string') {
			const text = parsed.trim();
			if (text === '') parsed = undefined;
			else if (text.startsWith('{') || text.startsWith('[')) {
				try {
					parsed = JSON.parse(text);
				} catch {
					// not JSON after all: keep the text
				}
			}
		}
		if (parsed === null || parsed === '') parsed = undefined;
		return { kind: 'response', statusCode, headers: response?.headers ?? {}, body: parsed };
	} catch (error) {
		return classifyThrown(error);
	}
}

// ---------------------------------------------------------------------------------------------------------
// Messages

const STATUS_TEXT: Record<number, string> = {
	400: 'Bad Request',
	401: 'Unauthorized',
	403: 'Forbidden',
	404: 'Not Found',
	405: 'Method Not Allowed',
	409: 'Conflict',
	415: 'Unsupported Media Type',
	422: 'Unprocessable Entity',
	429: 'Too Many Requests',
	500: 'Internal Server Error',
	502: 'Bad Gateway',
	503: 'Service Unavailable',
	504: 'Gateway Timeout',
};

export function statusMessage(statusCode: number, body: unknown, resource?: string): string {
	const detail = formatErrorBody(body);
	switch (statusCode) {
		case 400:
		case 422:
			return detail
				? `The service rejected the request: ${detail}`
				: `The service rejected the request (${statusCode})`;
		case 401:
			return 'Authorization failed - check the access token';
		case 403:
			return `The access token lacks permission for ${resource ?? 'this operation'}`;
		case 404:
			return resource ? `${resource} not found` : 'The requested resource was not found';
		case 429:
			return 'The service is rate limiting requests (429 Too Many Requests)';
		default: {
			const label = `${statusCode}${STATUS_TEXT[statusCode] ? ' ' + STATUS_TEXT[statusCode] : ''}`;
			if (statusCode >= 500) return `The service failed (${label})${detail ? ': ' + detail : ''}`;
			return `The service answered ${label}${detail ? ': ' + detail : ''}`;
		}
	}
}

function seconds(ms: number): string {
	return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;
}

function redactAll(info: CredentialInfo | undefined, text: string | undefined): string | undefined {
	if (text === undefined) return undefined;
	return info ? redact(text, info.secrets) : text;
}

function apiError(
	ctx: TransportContext,
	info: CredentialInfo,
	outcome: Outcome,
	request: { method: string; url: string },
	opts: ApiRequestOptions,
	tried?: { attempts: number; waitedMs: number; reason?: string },
): Error {
	const node = ctx.getNode();
	const where = `${request.method} ${request.url.replace(info.baseUrl, '')}`;
	const triedText = tried
		? ` after ${tried.attempts} attempt${tried.attempts === 1 ? '' : 's'} (waited ${seconds(tried.waitedMs)} in total${tried.reason ? '; ' + tried.reason : ''})`
		: '';
	if (outcome.kind === 'network') {
		const message = redactAll(info, `Could not reach the service: ${outcome.detail}${triedText}`)!;
		const error = new NodeApiError(
			node,
			{ networkError: outcome.code, request: where } as JsonObject,
			{
				message,
				description: redactAll(info, `${where} - ${outcome.code}`),
				itemIndex: opts.itemIndex,
			},
		);
		return error;
	}
	const raw = rawBodyText(outcome.body);
	const message = redactAll(info, statusMessage(outcome.statusCode, outcome.body, opts.resource) + triedText)!;
	const description = redactAll(
		info,
		`${where} answered ${outcome.statusCode}${raw ? `. Response body: ${raw}` : ''}`,
	);
	return new NodeApiError(
		node,
		{ statusCode: outcome.statusCode, request: where } as JsonObject,
		{
			message,
			description,
			httpCode: String(outcome.statusCode),
			itemIndex: opts.itemIndex,
		},
	);
}

// ---------------------------------------------------------------------------------------------------------
// Retry loop

const ALWAYS_RETRY = new Set([429, 503]);
const RETRY_IF_IDEMPOTENT = new Set([500, 502, 504]);

export interface RetryHooks {
	/** Decides whether an outcome is retried (default: the rules in the header of this file). */
	retryable?: (outcome: Outcome) => boolean;
	/**
	 * Called before a retry after an outcome that may have been processed; returning a response ends the loop
	 * with it (createWebhook adopts a subscription the service stored although the answer was lost). Returning
	 * 'hold' sends nothing this round: the loop waits (the un-jittered backoff ceiling, inside the wait budget)
	 * and asks again, so a request that the service may still be processing is never sent a second time.
	 */
	beforeRetry?: (outcome: Outcome) => Promise<ApiResponse | undefined | 'hold'>;
}

export function isAmbiguous(outcome: Outcome): boolean {
	if (outcome.kind === 'network') return !outcome.refused;
	return outcome.statusCode >= 500 && outcome.statusCode !== 503;
}

function defaultRetryable(idempotent: boolean): (outcome: Outcome) => boolean {
	return (outcome) => {
		if (outcome.kind === 'network') return outcome.refused || idempotent;
		if (ALWAYS_RETRY.has(outcome.statusCode)) return true;
		return idempotent && RETRY_IF_IDEMPOTENT.has(outcome.statusCode);
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
	const idempotent = opts.idempotent ?? method !== 'POST';
	const retryable = hooks.retryable ?? defaultRetryable(idempotent);
	let waitedMs = 0;
	let attempt = 0;
	let ambiguousBefore = false;
	let held: Outcome | undefined;
	let holds = 0;
	for (;;) {
		if (held) {
			// The previous attempt may still be in progress at the service: wait and look again, send nothing.
			const remaining = policy.maxWaitMs - waitedMs;
			if (remaining <= 0) {
				throw apiError(ctx, info, held, { method, url }, opts, {
					attempts: attempt,
					waitedMs,
					reason:
						'the service may still process the request that timed out, so it was not sent again; check before trying again',
				});
			}
			holds++;
			const delay = Math.min(remaining, Math.max(50, policy.baseDelayMs) * Math.pow(2, Math.min(holds - 1, 6)));
			ctx.logger?.debug(`Appointments API: ${method} outcome still unknown; looking again in ${delay} ms`);
			await sleep(delay);
			waitedMs += delay;
			const decision = await hooks.beforeRetry!(held);
			if (decision === 'hold') continue;
			if (decision) return { ...decision, attempts: attempt } as ApiResponse<T>;
			held = undefined;
		}
		attempt++;
		const outcome = await sendOnce(ctx, method, url, opts.body, policy.timeoutMs);
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
		if (!retryable(outcome)) {
			throw apiError(ctx, info, outcome, { method, url }, opts, attempt > 1 ? { attempts: attempt, waitedMs } : undefined);
		}
		if (attempt >= policy.maxAttempts) {
			throw apiError(ctx, info, outcome, { method, url }, opts, {
				attempts: attempt,
				waitedMs,
				reason: 'no attempts left',
			});
		}
		const remaining = policy.maxWaitMs - waitedMs;
		const retryAfter =
			outcome.kind === 'response' ? parseRetryAfter(outcome.headers['retry-after'] ?? outcome.headers['Retry-After']) : undefined;
		let delay: number;
		if (retryAfter !== undefined) {
			if (retryAfter > remaining) {
				throw apiError(ctx, info, outcome, { method, url }, opts, {
					attempts: attempt,
					waitedMs,
					reason: `the service asked to retry after ${seconds(retryAfter)}, more than the ${seconds(Math.max(0, remaining))} left of the retry budget`,
				});
			}
			delay = retryAfter;
		} else {
			if (remaining <= 0) {
				throw apiError(ctx, info, outcome, { method, url }, opts, {
					attempts: attempt,
					waitedMs,
					reason: 'retry wait budget exhausted',
				});
			}
			delay = Math.min(remaining, backoffDelay(attempt, policy.baseDelayMs, policy.maxWaitMs));
		}
		const what = outcome.kind === 'response' ? `status ${outcome.statusCode}` : outcome.code;
		ctx.logger?.debug(
			`Appointments API: ${method} attempt ${attempt} failed (${what}); retrying in ${delay} ms`,
		);
		if (delay > 0) await sleep(delay);
		waitedMs += delay;
		if (isAmbiguous(outcome)) ambiguousBefore = true;
		if (hooks.beforeRetry && isAmbiguous(outcome)) {
			const adopted = await hooks.beforeRetry(outcome);
			if (adopted === 'hold') held = outcome;
			else if (adopted) return { ...adopted, attempts: attempt } as ApiResponse<T>;
		}
	}
}

// ---------------------------------------------------------------------------------------------------------
// Public entry points

/** A request to `/api/v3/<path>` at the credential's base URL. */
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
	return await apiRequestUrlChecked<T>(ctx, info, method, url, opts, hooks);
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
	return await apiRequestUrlChecked<T>(ctx, info, method, absoluteUrl, opts, hooks);
}

async function apiRequestUrlChecked<T>(
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

/** Internal: lets other transport modules reuse the loaded credential info (origin, secrets for redaction). */
export async function transportCredentialInfo(ctx: TransportContext): Promise<{ baseUrl: string; origin: string }> {
	const info = await credentialInfo(ctx);
	return { baseUrl: info.baseUrl, origin: info.origin };
}

/** The NodeApiError apiRequest would have thrown for a response the caller accepted via `allowStatus`. */
export async function responseError(
	ctx: TransportContext,
	response: ApiResponse,
	method: IHttpRequestMethods,
	opts: ApiRequestOptions = {},
): Promise<Error> {
	const info = await credentialInfo(ctx);
	return apiError(
		ctx,
		info,
		{ kind: 'response', statusCode: response.statusCode, headers: {}, body: response.body },
		{ method, url: response.url },
		opts,
	);
}
