import type { IDataObject, ILoadOptionsFunctions } from 'n8n-workflow';

import { apiRequest, apiRequestUrl, type ApiResponse } from '../transport/http/apiRequest.js';
import { credentialInfo } from '../transport/http/credentialInfo.js';
import { resolveSameOrigin } from '../transport/http/apiUrls.js';

/**
 * One page of a list for a resource locator: the first page from `path` with `qs`, a later one from the `next`
 * link handed back as the pagination token. The token comes back from the browser, so apiRequestUrl checks
 * its origin again before anything is sent.
 */
export async function locatorPage(
	ctx: ILoadOptionsFunctions,
	path: string,
	qs: IDataObject | undefined,
	paginationToken: string | undefined,
	resource: string,
): Promise<{ records: IDataObject[]; next: string | undefined }> {
	const response: ApiResponse<unknown> = paginationToken
		? await apiRequestUrl<unknown>(ctx, 'GET', paginationToken, { resource })
		: await apiRequest<unknown>(ctx, 'GET', path, { qs, resource });
	const body = response.body;
	if (Array.isArray(body)) return { records: body as IDataObject[], next: undefined };
	if (!body || typeof body !== 'object') return { records: [], next: undefined };
	const { results, next } = body as IDataObject;
	const records = Array.isArray(results) ? (results as IDataObject[]) : [];
	if (records.length === 0 || typeof next !== 'string' || next.trim() === '') {
		return { records, next: undefined };
	}
	const { origin } = await credentialInfo(ctx);
	return { records, next: resolveSameOrigin(origin, next.trim(), response.url) };
}
