/** What every request shares: the retry/time-out policy, and what the credential says (base URL, token, account zone). */
import { IANAZone } from 'luxon';
import { NodeOperationError, type IAllExecuteFunctions } from 'n8n-workflow';

import { normaliseBaseUrl, originOf } from './apiUrls.js';

export type TransportContext = IAllExecuteFunctions;

/**
 * Attempts in all (the first included), the wait between them in all, one attempt's time-out, the first backoff
 * ceiling (doubling); `leaveToRetryOnFail`: version 4, whose retry setting is n8n's Retry On Fail (apiRequest.ts).
 */
export type RequestPolicy = {
	maxAttempts: number;
	maxWaitMs: number;
	timeoutMs: number;
	baseDelayMs: number;
	leaveToRetryOnFail: boolean;
};

export const DEFAULT_POLICY: RequestPolicy = Object.freeze({
	maxAttempts: 5,
	maxWaitMs: 60000,
	timeoutMs: 30000,
	baseDelayMs: 500,
	leaveToRetryOnFail: false,
});

export const CREDENTIAL_NAME = 'appointmentsApi';

/** The defaults with what `partial` sets: its values were checked where they were read (the router's Options). */
export function resolvePolicy(partial: Partial<RequestPolicy> = {}): RequestPolicy {
	return { ...DEFAULT_POLICY, ...partial };
}

export type CredentialInfo = { baseUrl: string; origin: string; secrets: string[] };

/**
 * Why a Base URL cannot be used, or undefined. User info would be sent as Basic auth instead of the token, and a
 * query or fragment would be cut off by the API paths (so requests would go to the root), so all three are refused;
 * so is one that is no http(s) address once `/api/v3` is stripped.
 */
function baseUrlProblem(raw: string): string | undefined {
	if (/^[^/]*\/\/[^/?#]*@/.test(raw))
		return "The credential's Base URL must not contain a user name or password (user:password@): the service is authenticated with the Access Token only";
	const url = URL.canParse(raw) ? new URL(raw) : undefined;
	const part = raw.includes('?')
		? 'a query (?…)'
		: raw.includes('#')
			? 'a fragment (#…)'
			: undefined;
	if (url && part)
		return `The credential's Base URL must not contain ${part}: give the service's address only, such as ${url.origin}`;
	if (url && /^https?:$/.test(url.protocol) && originOf(normaliseBaseUrl(raw))) return undefined;
	return `The credential's Base URL "${raw}" is not a valid http(s) address`;
}

/** A Base URL that cannot be used is an error before any request. */
export async function credentialInfo(ctx: TransportContext): Promise<CredentialInfo> {
	const credentials = await ctx.getCredentials(CREDENTIAL_NAME);
	const raw = String(credentials?.baseUrl ?? '').trim();
	const problem = baseUrlProblem(raw);
	if (problem !== undefined) {
		const description =
			'Open the Appointments API credential and paste the base URL from the service dashboard (Settings › API access), such as https://api.example.com.';
		throw new NodeOperationError(ctx.getNode(), problem, { description });
	}
	const [baseUrl, token] = [normaliseBaseUrl(raw), credentials?.accessToken];
	return {
		baseUrl,
		origin: originOf(baseUrl) as string,
		secrets: typeof token === 'string' ? [token] : [],
	};
}

/**
 * The IANA zone the credential names, or undefined when it names none (empty, or saved before the field existed: the
 * caller then uses the zone it read the dates in). Not a zone: an error before any request, never a silent guess.
 */
export async function accountTimeZone(ctx: TransportContext): Promise<string | undefined> {
	const credentials = await ctx.getCredentials(CREDENTIAL_NAME);
	const raw = credentials?.accountTimeZone;
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === ''))
		return undefined;
	if (typeof raw === 'string' && IANAZone.isValidZone(raw.trim())) return raw.trim();
	const description =
		"Open the Appointments API credential and type the time zone your account is set to in the service, such as America/Santiago or Europe/Berlin, or leave it empty to use the workflow's.";
	const given = JSON.stringify(String(raw)).slice(0, 80);
	const message = `The credential's Account Time Zone ${given} is not an IANA time zone`;
	throw new NodeOperationError(ctx.getNode(), message, { description });
}
