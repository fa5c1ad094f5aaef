/**
 * Errors the transport throws, built from the status and the parsed body only: no HTTP library error (which
 * carries the request headers, i.e. the token) is passed on, and the token is redacted from every text.
 */
import { NodeApiError, type IHttpRequestMethods, type JsonObject } from 'n8n-workflow';

import type { Outcome } from './attempt';
import { credentialInfo, type CredentialInfo, type TransportContext } from './credential';

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
				if (found.length) return found;
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

export function redact(text: string, secrets: Array<string | undefined>): string {
	let out = text;
	for (const secret of secrets) {
		if (typeof secret === 'string' && secret.length >= 4) out = out.split(secret).join('***');
	}
	return out;
}

export function rawBodyText(body: unknown, max = 2000): string | undefined {
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

export function seconds(ms: number): string {
	return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;
}

export function apiError(
	ctx: TransportContext,
	info: CredentialInfo,
	outcome: Outcome,
	request: { method: string; url: string },
	labels: ErrorLabels,
	tried?: Tried,
): Error {
	const node = ctx.getNode();
	const clean = (text: string) => redact(text, info.secrets);
	const where = `${request.method} ${request.url.replace(info.baseUrl, '')}`;
	const triedText = tried
		? ` after ${tried.attempts} attempt${tried.attempts === 1 ? '' : 's'} (waited ${seconds(tried.waitedMs)} in total${tried.reason ? '; ' + tried.reason : ''})`
		: '';
	if (outcome.kind === 'network') {
		return new NodeApiError(node, { networkError: outcome.code, request: where } as JsonObject, {
			message: clean(`Could not reach the service: ${outcome.detail}${triedText}`),
			description: clean(`${where} - ${outcome.code}`),
			itemIndex: labels.itemIndex,
		});
	}
	const raw = rawBodyText(outcome.body);
	return new NodeApiError(node, { statusCode: outcome.statusCode, request: where } as JsonObject, {
		message: clean(statusMessage(outcome.statusCode, outcome.body, labels.resource) + triedText),
		description: clean(`${where} answered ${outcome.statusCode}${raw ? `. Response body: ${raw}` : ''}`),
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
