/**
 * Errors the transport throws, built from the status and the parsed body only: no HTTP library error (which
 * carries the request headers, i.e. the token) is passed on, and the token is redacted from every text.
 */
import { NodeApiError, type IDataObject, type IHttpRequestMethods, type JsonObject } from 'n8n-workflow';

import type { SendResult } from './httpAttempt';
import { credentialInfo, type CredentialInfo, type TransportContext } from './credentialInfo';
import { redact, redactBody } from './redaction';

/** What the error builders need of a request's options. */
export interface ErrorLabels {
	itemIndex?: number;
	/** 404 -> "<resource> not found", 403 -> "... permission for <resource>". */
	resource?: string;
}

export interface Tried {
	attempts: number;
	waitedMs: number;
	reason?: string;
}

function rawBodyText(body: unknown, max = 2000): string | undefined {
	if (body === undefined || body === null || body === '') return undefined;
	let text: string;
	if (typeof body === 'string') text = body;
	else {
		try {
			text = JSON.stringify(body);
		} catch {
			text = String(body);
		}
	}
	return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** One readable line from whatever error body a service sends: `detail`/`message`/`error`, field maps, error lists. */
function messagesOf(value: unknown, depth = 0): string[] {
	if (depth > 5 || value === undefined || value === null) return [];
	if (typeof value === 'string') return value.trim() ? [value.trim()] : [];
	if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
	if (Array.isArray(value)) return value.flatMap((v) => messagesOf(v, depth + 1));
	if (typeof value === 'object') {
		const obj = value as Record<string, unknown>;
		for (const key of ['detail', 'message', 'error_description', 'error', 'title', 'msg']) {
			if (key in obj) {
				const found = messagesOf(obj[key], depth + 1);
				if (!found.length) continue;
				// An entry of an error list such as { field: "events", message: "..." } names its field.
				const field = ['field', 'attr', 'param', 'parameter'].map((f) => obj[f]).find((f) => typeof f === 'string' && f);
				return field ? [`${String(field)}: ${found.join(' ')}`] : found;
			}
		}
		// Field map: { field: ["msg", ...] } -> "field: msg; msg"
		const out: string[] = [];
		for (const [field, v] of Object.entries(obj)) {
			const msgs = messagesOf(v, depth + 1);
			if (!msgs.length) continue;
			if (field === 'non_field_errors' || field === 'errors') out.push(...msgs);
			else out.push(`${field}: ${msgs.join(' ')}`);
		}
		return out;
	}
	return [];
}

/** One readable message from any error body (JSON text, `detail`/`message`/`error`, field maps, arrays). */
export function formatErrorBody(body: unknown): string {
	let value = body;
	if (typeof value === 'string') {
		const text = value.trim();
		if (text.startsWith('{') || text.startsWith('[')) {
			try {
				value = JSON.parse(text);
			} catch {
				value = text;
			}
		}
	}
	if (typeof value === 'string') {
		// Not JSON (HTML error page etc.): keep it short and strip tags.
		const plain = value.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
		return plain.length > 300 ? `${plain.slice(0, 297)}...` : plain;
	}
	const text = messagesOf(value).join('; ');
	return text.length > 1000 ? `${text.slice(0, 997)}...` : text;
}

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

/** How a builder fixes what a status means, in one sentence; the request and body follow it. */
export function fixFor(statusCode: number): string {
	if (statusCode === 401)
		return 'Open the Appointments API credential and paste the access token again from the service dashboard (Settings › API access).';
	if (statusCode === 403) return "Use an access token with this permission: the service dashboard's Settings › API access shows the account's token.";
	if (statusCode === 404) return 'Pick the record from the list, or check the key: it may have been deleted or belong to another account.';
	if (statusCode === 429) return 'The service asks for fewer requests: lower Concurrency under Advanced, or run the workflow less often.';
	if (statusCode === 400 || statusCode === 422) return 'Change the field the message names and run the node again.';
	if (statusCode >= 500) return "The service had a problem: run again later, or turn on Retry On Fail in the node's settings.";
	return 'Check the fields of the node and the Base URL of the credential.';
}

const NETWORK_FIX =
	"Check the Base URL of the Appointments API credential and that n8n can reach the service; a slow service may need a longer Timeout under Advanced.";

export function seconds(ms: number): string {
	return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;
}

export function apiError(
	ctx: TransportContext,
	info: CredentialInfo,
	outcome: SendResult,
	request: { method: string; url: string },
	labels: ErrorLabels,
	tried?: Tried,
): Error {
	const node = ctx.getNode();
	const clean = (text: string) => redact(text, info.secrets);
	const where = clean(`${request.method} ${request.url.replace(info.baseUrl, '')}`);
	const triedText = tried
		? ` after ${tried.attempts} attempt${tried.attempts === 1 ? '' : 's'} (waited ${seconds(tried.waitedMs)} in total${tried.reason ? '; ' + tried.reason : ''})`
		: '';
	if (outcome.kind === 'network') {
		return new NodeApiError(node, { networkError: outcome.code, request: where } as JsonObject, {
			message: clean(`Could not reach the service: ${outcome.detail}${triedText}`),
			description: `${NETWORK_FIX} ${where} - ${outcome.code}`,
			itemIndex: labels.itemIndex,
		});
	}
	if (outcome.kind === 'tooLarge') {
		const mb = Math.round(outcome.limit / (1024 * 1024));
		return new NodeApiError(node, { statusCode: outcome.statusCode, request: where } as JsonObject, {
			message: `The service's answer was too large: more than ${mb} MB, so it was not read`,
			description: `${where} answered ${outcome.statusCode} with a body over the ${mb} MB limit; reading stopped there`,
			httpCode: String(outcome.statusCode),
			itemIndex: labels.itemIndex,
		});
	}
	const body = redactBody(outcome.body, info.secrets);
	const raw = rawBodyText(body);
	return new NodeApiError(node, { statusCode: outcome.statusCode, request: where } as JsonObject, {
		message: clean(statusMessage(outcome.statusCode, body, labels.resource) + triedText),
		description: clean(`${fixFor(outcome.statusCode)} ${where} answered ${outcome.statusCode}${raw ? `. Response body: ${raw}` : ''}`),
		httpCode: String(outcome.statusCode),
		itemIndex: labels.itemIndex,
	});
}

/** The NodeApiError apiRequest would have thrown for a response the caller accepted via `allowStatus`. */
export async function responseError(
	ctx: TransportContext,
	response: { statusCode: number; body: unknown; url: string },
	method: IHttpRequestMethods,
	labels: ErrorLabels = {},
): Promise<Error> {
	const info = await credentialInfo(ctx);
	return apiError(
		ctx,
		info,
		{ kind: 'response', statusCode: response.statusCode, headers: {}, body: response.body },
		{ method, url: response.url },
		labels,
	);
}

function kindOf(body: unknown): string {
	if (Array.isArray(body)) return 'a JSON array';
	if (typeof body === 'string') return /^\s*</.test(body) ? 'an HTML page' : 'text';
	if (body === undefined) return 'empty';
	return `a ${typeof body}`;
}

/**
 * The answer as one record: a JSON object, or undefined for an empty answer (the caller reads it back). Anything
 * else (a proxy's HTML login page, a string, a number, an array) is not taken as success: it throws.
 */
export async function recordOf(
	ctx: TransportContext,
	response: { statusCode: number; body: unknown; url: string },
	method: IHttpRequestMethods,
	labels: ErrorLabels = {},
	allowEmpty = true,
): Promise<IDataObject | undefined> {
	const { body } = response;
	if (body !== null && typeof body === 'object' && !Array.isArray(body)) return body as IDataObject;
	if (body === undefined && allowEmpty) return undefined;
	const info = await credentialInfo(ctx);
	const where = redact(`${method} ${response.url.replace(info.baseUrl, '')}`, info.secrets);
	const raw = rawBodyText(redactBody(body, info.secrets), 500);
	throw new NodeApiError(ctx.getNode(), { statusCode: response.statusCode, request: where } as JsonObject, {
		message: `The service answered ${response.statusCode} but the answer was not a JSON object (it was ${kindOf(body)}); nothing is reported as done`,
		description: `Check that the credential's Base URL is the service's API address (a proxy or login page answers like this). ${where} answered ${response.statusCode}${raw ? `. Response body: ${raw}` : ' with an empty body'}`,
		httpCode: String(response.statusCode),
		itemIndex: labels.itemIndex,
	});
}

/** An empty answer to a webhook create or update whose subscription the list does not show either. */
export function unconfirmedError(ctx: TransportContext, statusCode: number, what: string, itemIndex?: number): Error {
	return new NodeApiError(ctx.getNode(), { statusCode } as JsonObject, {
		message: `The service answered ${statusCode} without the webhook, and ${what} is not in the list, so it cannot be confirmed`,
		description: 'Run Webhook > Get Many to see whether it was made before trying again.',
		httpCode: String(statusCode),
		itemIndex,
	});
}
