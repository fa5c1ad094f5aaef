import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { locatorPage } from '../transport/list/paginate.js';

/** `https://example.com/hook · appointment.created, appointment.canceled` */
export function webhookLabel(record: IDataObject): string {
	const events = Array.isArray(record.events) ? record.events.join(', ') : '';
	return [record.url, events].filter((part) => typeof part === 'string' && part !== '').join(' · ');
}

/**
 * Subscriptions for the Webhook locator. The service has no list filters for webhooks, so the search text
 * narrows each page by URL, event or key (case-insensitive).
 */
export async function searchWebhooks(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const text = (filter ?? '').trim().toLowerCase();
	const page = await locatorPage(this, 'webhooks', undefined, paginationToken);
	const results = page.records
		.map((record) => ({ name: webhookLabel(record), value: String(record.webhook_key) }))
		.filter(({ name, value }) => `${name} ${value}`.toLowerCase().includes(text));
	return { results, paginationToken: page.next };
}
