import type { IDataObject, ILoadOptionsFunctions } from 'n8n-workflow';

import { apiRequest, apiRequestUrl, type ApiResponse } from '../transport/http/apiRequest.js';
import { credentialInfo } from '../transport/http/credentialInfo.js';
import { resolveSameOrigin } from '../transport/http/apiUrls.js';
import { pageOf } from '../transport/list/paginate.js';

/**
 * One page of a list for a resource locator: the first page of `list` with `qs`, a later one from the `next`
 * link handed back as the pagination token. The token comes back from the browser, so apiRequestUrl checks
 * its origin again before anything is sent.
 */
export async function locatorPage(
	ctx: ILoadOptionsFunctions,
	list: 'appointments' | 'webhooks',
	qs: IDataObject | undefined,
	paginationToken: string | undefined,
): Promise<{ records: IDataObject[]; next: string | undefined }> {
	const response: ApiResponse<unknown> = paginationToken
		? await apiRequestUrl<unknown>(ctx, 'GET', paginationToken, { resource: list })
		: await apiRequest<unknown>(ctx, 'GET', `${list}/`, { qs, resource: list });
	const { records = [], next } = pageOf(response.body) ?? {};
	if (records.length === 0 || next === undefined) return { records, next: undefined };
	const { origin } = await credentialInfo(ctx);
	return { records, next: resolveSameOrigin(origin, next, response.url) };
}
