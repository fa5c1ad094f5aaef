/** A webhook subscription's input checks and identity, shared by the Webhook operations and the trigger. */
import { NodeOperationError, type IDataObject, type INode } from 'n8n-workflow';

export interface WebhookInput {
	url: string;
	events: string[];
}

/** The URL, trimmed, when it is an absolute https address; undefined otherwise. The one https check. */
export function httpsUrl(value: unknown): string | undefined {
	const url = typeof value === 'string' ? value.trim() : '';
	try {
		return new URL(url).protocol === 'https:' ? url : undefined;
	} catch {
		return undefined;
	}
}

export function validateWebhookUrl(node: INode, raw: unknown, itemIndex: number): string {
	const url = httpsUrl(raw);
	if (url !== undefined) return url;
	const text = typeof raw === 'string' ? raw.trim() : '';
	const message = URL.canParse(text)
		? `The field "URL" (item ${itemIndex}) must use https: the service only accepts HTTPS callback URLs (got "${text}")`
		: `The field "URL" (item ${itemIndex}) must be an absolute HTTPS address (got "${String(raw ?? '')}")`;
	throw new NodeOperationError(node, message, {
		itemIndex,
		description:
			'Set "URL" to an address that starts with https://, such as the Production URL of an n8n Webhook node served over https.',
	});
}

export function sameEvents(a: unknown, b: string[]): boolean {
	if (!Array.isArray(a)) return false;
	const left = new Set(a.map(String));
	const right = new Set(b);
	return left.size === right.size && [...left].every((e) => right.has(e));
}

/** A subscription's webhook_key as text ('' when it has none), for comparing and for paths. */
export function keyOf(subscription: IDataObject): string {
	const key = subscription.webhook_key;
	return typeof key === 'string' || typeof key === 'number' ? String(key) : '';
}
