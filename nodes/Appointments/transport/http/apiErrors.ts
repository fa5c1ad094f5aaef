/**
 * Errors the transport throws, built from the status and the parsed body only: no HTTP library error (which
 * carries the request headers, i.e. the token) is passed on, and the token is redacted from every text.
 */
import {
	NodeApiError,
	type IDataObject,
	type IHttpRequestMethods,
	type JsonObject,
} from 'n8n-workflow';

import { NOT_TLS, parseBody, untrusted, type SendResult } from './httpAttempt.js';
import { credentialInfo, type CredentialInfo, type TransportContext } from './credentialInfo.js';
import { redact, redactBody } from './redaction.js';

/** `resource` names what a 404 ("<resource> not found") or a 403 is about. */
export type ErrorLabels = { itemIndex?: number; resource?: string };
type Tried = { attempts: number; waitedMs: number; reason?: string };
type Answer = { statusCode: number; body: unknown; url: string };

function rawBodyText(body: unknown, max = 2000): string | undefined {
	if (body === undefined || body === null || body === '') return undefined;
	// A parsed body: JSON.stringify cannot throw on it.
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** The messages of whatever error body a service sends: `detail`/`message`/`error`, field maps, error lists. */
function messagesOf(value: unknown, depth = 0): string[] {
	if (depth > 5 || value === undefined || value === null) return [];
	if (typeof value === 'string') return value.trim() ? [value.trim()] : [];
	if (typeof value !== 'object') return [String(value)]; // a parsed body's number or boolean
	if (Array.isArray(value)) return value.flatMap((v) => messagesOf(v, depth + 1));
	const obj = value as Record<string, unknown>;
	for (const key of ['detail', 'message', 'error_description', 'error', 'title', 'msg']) {
		const found = key in obj ? messagesOf(obj[key], depth + 1) : [];
		if (!found.length) continue;
		// An entry of an error list such as { field: "events", message: "..." } names its field.
		const field = ['field', 'attr', 'param', 'parameter']
			.map((f) => obj[f])
			.find((f) => typeof f === 'string' && f);
		return field ? [`${String(field)}: ${found.join(' ')}`] : found;
	}
	// A field map: { field: ["msg", ...] } -> "field: msg; msg"
	const named = (field: string, msgs: string[]) =>
		!msgs.length || ['non_field_errors', 'errors'].includes(field)
			? msgs
			: [`${field}: ${msgs.join(' ')}`];
	return Object.entries(obj).flatMap(([field, v]) => named(field, messagesOf(v, depth + 1)));
}

/** One readable message from any error body (JSON text, `detail`/`message`/`error`, field maps, arrays). */
export function formatErrorBody(body: unknown): string {
	const value = typeof body === 'string' && /^\s*[{[]/.test(body) ? parseBody(body) : body;
	if (typeof value === 'string') {
		// Not JSON (HTML error page etc.): keep it short and strip tags.
		const plain = value
			.replace(/<[^>]*>/g, ' ')
			.replace(/\s+/g, ' ')
			.trim();
		return plain.length > 300 ? `${plain.slice(0, 297)}...` : plain;
	}
	const text = messagesOf(value).join('; ');
	return text.length > 1000 ? `${text.slice(0, 997)}...` : text;
}

/** The statuses BY_STATUS does not word itself. */
const STATUS_TEXT: Record<number, string> = {
	405: 'Method Not Allowed',
	409: 'Conflict',
	415: 'Unsupported Media Type',
	500: 'Internal Server Error',
	502: 'Bad Gateway',
	503: 'Service Unavailable',
	504: 'Gateway Timeout',
};

type Message = (detail: string, resource: string | undefined, statusCode: number) => string;
const rejected: Message = (detail, _, statusCode) =>
	detail
		? `The service rejected the request: ${detail}`
		: `The service rejected the request (${statusCode})`;
const REJECTED_FIX = 'Change the field the message names and run the node again.';

/** Per status: the message, and how a builder fixes it in one sentence (the request and body follow it). */
const BY_STATUS: Record<number, [Message, string]> = {
	400: [rejected, REJECTED_FIX],
	422: [rejected, REJECTED_FIX],
	401: [
		() => 'Authorization failed - check the access token',
		'Open the Appointments API credential and paste the access token again from the service dashboard (Settings › API access).',
	],
	403: [
		(_, resource) => `The access token lacks permission for ${resource ?? 'this operation'}`,
		"Use an access token with this permission: the service dashboard's Settings › API access shows the account's token.",
	],
	404: [
		(_, resource) => (resource ? `${resource} not found` : 'The requested resource was not found'),
		'Pick the record from the list, or check the key: it may have been deleted or belong to another account.',
	],
	429: [
		() => 'The service is rate limiting requests (429 Too Many Requests)',
		'The service asks for fewer requests: lower Concurrency under Advanced, or run the workflow less often.',
	],
};

export function statusMessage(statusCode: number, body: unknown, resource?: string): string {
	const detail = formatErrorBody(body);
	if (BY_STATUS[statusCode]) return BY_STATUS[statusCode][0](detail, resource, statusCode);
	const label = `${statusCode}${STATUS_TEXT[statusCode] ? ' ' + STATUS_TEXT[statusCode] : ''}`;
	return `${statusCode >= 500 ? `The service failed (${label})` : `The service answered ${label}`}${detail ? ': ' + detail : ''}`;
}

const SERVER_FIX =
	"The service had a problem: run again later, or turn on Retry On Fail in the node's settings.";
const OTHER_FIX = 'Check the fields of the node and the Base URL of the credential.';
const NETWORK_FIX =
	'Check the Base URL of the Appointments API credential and that n8n can reach the service; a slow service may need a longer Timeout under Advanced.';
const CERTIFICATE_FIX =
	'The Base URL of the Appointments API credential serves https with a certificate n8n does not trust: use the address Settings › API access shows, or make n8n trust that certificate with NODE_EXTRA_CA_CERTS.';
const NOT_TLS_FIX =
	'The Base URL of the Appointments API credential starts with https://, but that address does not speak https (it answers in plain http, say): use the address Settings › API access shows.';

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;

/** "METHOD /path" as errors show a request, redacted. */
function where(info: CredentialInfo, method: string, url: string): string {
	return redact(`${method} ${url.replace(info.baseUrl, '')}`, info.secrets);
}

/** An error about an answer the service gave (`request` shown as "METHOD /path"). */
export function answerError(
	ctx: TransportContext,
	statusCode: number,
	message: string,
	description: string,
	itemIndex?: number,
	request?: string,
): Error {
	const context = (request === undefined ? { statusCode } : { statusCode, request }) as JsonObject;
	return new NodeApiError(ctx.getNode(), context, {
		message,
		description,
		httpCode: String(statusCode),
		itemIndex,
	});
}

/** " after N attempts (waited … in total; why)", or '' when nothing was retried. */
function triedText(tried?: Tried): string {
	if (!tried) return '';
	const reason = tried.reason ? '; ' + tried.reason : '';
	return ` after ${tried.attempts} attempt${tried.attempts === 1 ? '' : 's'} (waited ${seconds(tried.waitedMs)} in total${reason})`;
}

export function apiError(
	ctx: TransportContext,
	info: CredentialInfo,
	outcome: SendResult,
	request: { method: string; url: string },
	labels: ErrorLabels,
	tried?: Tried,
): Error {
	const clean = (text: string) => redact(text, info.secrets);
	const at = where(info, request.method, request.url);
	const { itemIndex } = labels;
	if (outcome.kind === 'network') {
		const message = clean(`Could not reach the service: ${outcome.detail}${triedText(tried)}`);
		const certificate = untrusted(outcome) ? CERTIFICATE_FIX : NETWORK_FIX;
		const fix = NOT_TLS.test(outcome.code) ? NOT_TLS_FIX : certificate;
		const description = `${fix} ${at} - ${outcome.code}`;
		const context = { networkError: outcome.code, request: at } as JsonObject;
		return new NodeApiError(ctx.getNode(), context, { message, description, itemIndex });
	}
	const { statusCode } = outcome;
	if (outcome.kind === 'tooLarge') {
		const mb = Math.round(outcome.limit / (1024 * 1024));
		const message = `The service's answer was too large: more than ${mb} MB, so it was not read`;
		const description = `${at} answered ${statusCode} with a body over the ${mb} MB limit; reading stopped there`;
		return answerError(ctx, statusCode, message, description, itemIndex, at);
	}
	const body = redactBody(outcome.body, info.secrets);
	const raw = rawBodyText(body);
	const fix = BY_STATUS[statusCode]?.[1] ?? (statusCode >= 500 ? SERVER_FIX : OTHER_FIX);
	const description = clean(
		`${fix} ${at} answered ${statusCode}${raw ? `. Response body: ${raw}` : ''}`,
	);
	const message = clean(statusMessage(statusCode, body, labels.resource) + triedText(tried));
	return answerError(ctx, statusCode, message, description, itemIndex, at);
}

/** The NodeApiError apiRequest would have thrown for a response the caller accepted via `allowStatus`. */
export async function responseError(
	ctx: TransportContext,
	response: Answer,
	method: IHttpRequestMethods,
	labels: ErrorLabels = {},
): Promise<Error> {
	const { statusCode, body, url } = response;
	const outcome: SendResult = { kind: 'response', statusCode, headers: {}, body };
	return apiError(ctx, await credentialInfo(ctx), outcome, { method, url }, labels);
}

function kindOf(body: unknown): string {
	if (typeof body === 'string') return /^\s*</.test(body) ? 'an HTML page' : 'text';
	return Array.isArray(body) ? 'a JSON array' : body === undefined ? 'empty' : `a ${typeof body}`;
}

/**
 * The answer as one record: a JSON object, or undefined for an empty answer (the caller reads it back). Anything
 * else (a proxy's HTML login page, a string, a number, an array) is not taken as success: it throws.
 */
export async function recordOf(
	ctx: TransportContext,
	response: Answer,
	method: IHttpRequestMethods,
	labels: ErrorLabels = {},
	allowEmpty = true,
): Promise<IDataObject | undefined> {
	const { body, statusCode } = response;
	if (body !== null && typeof body === 'object' && !Array.isArray(body)) return body as IDataObject;
	if (body === undefined && allowEmpty) return undefined;
	const info = await credentialInfo(ctx);
	const at = where(info, method, response.url);
	const raw = rawBodyText(redactBody(body, info.secrets), 500);
	const message = `The service answered ${statusCode} but the answer was not a JSON object (it was ${kindOf(body)}); nothing is reported as done`;
	const description = `Check that the credential's Base URL is the service's API address (a proxy or login page answers like this). ${at} answered ${statusCode}${raw ? `. Response body: ${raw}` : ' with an empty body'}`;
	throw answerError(ctx, statusCode, message, description, labels.itemIndex, at);
}

const UNCONFIRMED_FIX = 'Run Webhook > Get Many to see whether it was made before trying again.';

/** An empty answer to a webhook create or update whose subscription the list does not show either. */
export function unconfirmedError(
	ctx: TransportContext,
	statusCode: number,
	what: string,
	itemIndex?: number,
): Error {
	const message = `The service answered ${statusCode} without the webhook, and ${what} is not in the list, so it cannot be confirmed`;
	return answerError(ctx, statusCode, message, UNCONFIRMED_FIX, itemIndex);
}
