/** What every request shares: the retry/time-out policy and the credential's base URL, origin and secrets. */
import { NodeOperationError, type IDataObject, type IExecuteFunctions, type IHookFunctions, type ILoadOptionsFunctions, type IWebhookFunctions } from 'n8n-workflow';

import { normaliseBaseUrl, originOf } from './utils';

export type TransportContext =
	| IExecuteFunctions
	| IHookFunctions
	| IWebhookFunctions
	| ILoadOptionsFunctions;

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

export interface CredentialInfo {
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

/** The credential's base URL, origin and secrets, read once per context. */
export function credentialInfo(ctx: TransportContext): Promise<CredentialInfo> {
	let info = credentialCache.get(ctx);
	if (!info) {
		info = loadCredentialInfo(ctx);
		credentialCache.set(ctx, info);
		info.catch(() => credentialCache.delete(ctx));
	}
	return info;
}

/** The base URL and origin of the credential, for other transport modules (pagination's origin check). */
export async function transportCredentialInfo(ctx: TransportContext): Promise<{ baseUrl: string; origin: string }> {
	const info = await credentialInfo(ctx);
	return { baseUrl: info.baseUrl, origin: info.origin };
}
