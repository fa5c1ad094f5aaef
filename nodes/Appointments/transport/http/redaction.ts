/**
 * The transport's one redaction of what the service sent back (a link, a body, a field name). A service may echo the
 * token as given, percent-encoded, lower-cased (a host name) or in part: every run of 8 of its characters goes.
 */
import { NodeApiError, NodeOperationError, type JsonObject } from 'n8n-workflow';

/** A body's strings are cut here before redaction: no error shows more than a few thousand characters. */
const MAX_REDACTED = 100_000;

/** Case folded for ASCII only (so the length never changes), and a space read as `+`, as a query writes it. */
function fold(text: string): string {
	return text.replace(/[A-Z ]/g, (c) => (c === ' ' ? '+' : c.toLowerCase()));
}

/** The text read as the characters it stands for (a `%XX` escape as one), folded, with each one's offset in it. */
function readUnits(text: string): { chars: string; starts: number[] } {
	const starts: number[] = [];
	const chars = text.replace(/%[0-9a-f]{2}|[\s\S]/gi, (unit, at: number) => {
		starts.push(at);
		return unit.length === 3 ? String.fromCharCode(parseInt(unit.slice(1), 16)) : unit;
	});
	starts.push(text.length);
	return { chars: fold(chars), starts };
}

/** The pieces to look for: every 8 characters of the secret, or the whole of a shorter one (4 at least). */
function piecesOf(secret: string): string[] {
	const folded = fold(secret);
	if (folded.length < 8) return folded.length >= 4 ? [folded] : [];
	return [...new Set(Array.from({ length: folded.length - 7 }, (_, i) => folded.slice(i, i + 8)))];
}

/** Marks the characters of `text` that hold a piece (`chars` is the text as read; `starts` maps it back). */
function hide(hidden: Uint8Array, pieces: string[], chars: string, starts?: number[]): void {
	for (const piece of pieces) {
		for (let at = chars.indexOf(piece); at !== -1; at = chars.indexOf(piece, at + 1)) {
			const end = at + piece.length;
			hidden.fill(1, starts?.[at] ?? at, starts?.[end] ?? end);
		}
	}
}

/** The text with every run of characters that holds a piece of a secret, as written or percent-decoded, as `***`. */
export function redact(text: string, secrets: Array<string | undefined>): string {
	const pieces = secrets.flatMap((s) => (typeof s === 'string' ? piecesOf(s) : []));
	if (pieces.length === 0 || text.length < 4) return text;
	const hidden = new Uint8Array(text.length);
	hide(hidden, pieces, fold(text));
	if (text.includes('%')) {
		const { chars, starts } = readUnits(text);
		hide(hidden, pieces, chars, starts);
	}
	if (!hidden.includes(1)) return text;
	// A run of hidden characters becomes one `***` (hidden[-1] is undefined).
	const shown = (c: string, i: number) => (!hidden[i] ? c : hidden[i - 1] ? '' : '***');
	return text.split('').map(shown).join('');
}

/** A parsed body with the secrets redacted from every string and key in it, before anything is cut short. */
export function redactBody(body: unknown, secrets: string[], depth = 0): unknown {
	if (typeof body === 'string') return redact(body.slice(0, MAX_REDACTED), secrets);
	if (body === null || typeof body !== 'object' || depth > 50) return body;
	if (Array.isArray(body)) return body.map((v) => redactBody(v, secrets, depth + 1));
	// fromEntries defines its keys, so a key such as `__proto__` stays a key.
	return Object.fromEntries(
		Object.entries(body).map(([key, value]) => [
			redact(key, secrets),
			redactBody(value, secrets, depth + 1),
		]),
	);
}

/** The error itself when no text in it holds a piece of a secret, else the same error built again from its redacted texts. */
export function redactError(error: unknown, secrets: string[]): unknown {
	if (!(error instanceof Error)) return error;
	const e = error as Partial<NodeApiError>;
	const cause = e.cause instanceof Error ? `${e.cause.message} ${e.cause.stack ?? ''}` : '';
	let json = '';
	try {
		json = JSON.stringify(error) ?? '';
	} catch {
		// a circular error: its own texts are enough
	}
	const texts = [error.message, String(e.description ?? ''), e.stack ?? '', cause, json].join('\n');
	if (redact(texts, secrets) === texts) return error;
	const message = redact(error.message, secrets);
	if (!e.node) return new Error(message);
	const description =
		typeof e.description === 'string' ? redact(e.description, secrets) : undefined;
	const itemIndex = typeof e.context?.itemIndex === 'number' ? e.context.itemIndex : undefined;
	if (error instanceof NodeApiError) {
		const httpCode = e.httpCode ?? undefined;
		return new NodeApiError(e.node, { statusCode: httpCode ?? null } as JsonObject, {
			message,
			description,
			httpCode,
			itemIndex,
		});
	}
	return new NodeOperationError(e.node, message, { description, itemIndex });
}
