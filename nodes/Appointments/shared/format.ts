/** A value as an error message shows it: text in quotes, anything else as (short) JSON. */
export function shown(value: unknown): string {
	if (typeof value === 'string') return `"${value}"`;
	if (value === undefined) return 'nothing';
	try {
		const text = JSON.stringify(value);
		return text === undefined ? String(value) : text.length > 200 ? text.slice(0, 200) + '…' : text;
	} catch {
		return String(value);
	}
}
