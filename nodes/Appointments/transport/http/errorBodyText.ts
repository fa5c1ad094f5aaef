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
