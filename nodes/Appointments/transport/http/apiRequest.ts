/**
 * The transport's two ways to send: to an API path at the credential's base URL, or to an absolute link (a
 * `next`) that must have the credential's origin. Both refuse another origin before anything is sent; the
 * sending and its retries are in retries.ts. Every error leaving here is redacted (redaction.ts).
 */
import { NodeOperationError, type IDataObject, type IHttpRequestMethods } from 'n8n-workflow';

import { buildApiUrl, originOf } from './apiUrls';
import { credentialInfo, type CredentialInfo, type TransportContext } from './credentialInfo';
import { redactError } from './redaction';
import { requestWithRetries, type ApiResponse, type RetryHooks, type SendOptions } from './retries';

async function send<T>(ctx: TransportContext, method: IHttpRequestMethods, urlOf: (info: CredentialInfo) => string, opts: SendOptions, hooks?: RetryHooks): Promise<ApiResponse<T>> {
	const info = await credentialInfo(ctx);
	let url: string;
	try {
		url = urlOf(info);
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), (error as Error).message, { itemIndex: opts.itemIndex });
	}
	const origin = originOf(url);
	try {
		if (origin !== info.origin) {
			const message = `Refusing to send a request to ${origin ?? 'an invalid address'}: only the credential's origin ${info.origin} is allowed`;
			throw new NodeOperationError(ctx.getNode(), message, { itemIndex: opts.itemIndex });
		}
		return await requestWithRetries<T>(ctx, info, method, url, opts, hooks);
	} catch (error) {
		// The URL and the answer are the service's: whatever error they made goes out redacted.
		throw redactError(error, info.secrets);
	}
}

/** A request to `/api/v3/<path>` at the credential's base URL; `path` ends with '/'. */
export async function apiRequest<T = IDataObject>(ctx: TransportContext, method: IHttpRequestMethods, path: string, opts: SendOptions & { qs?: IDataObject } = {}, hooks?: RetryHooks): Promise<ApiResponse<T>> {
	return await send<T>(ctx, method, (info) => buildApiUrl(info.baseUrl, path, opts.qs), opts, hooks);
}

/** A request to an absolute URL (a `next` link), refused without sending unless it has the base URL's origin. */
export async function apiRequestUrl<T = IDataObject>(ctx: TransportContext, method: IHttpRequestMethods, absoluteUrl: string, opts: SendOptions = {}, hooks?: RetryHooks): Promise<ApiResponse<T>> {
	return await send<T>(ctx, method, () => absoluteUrl, opts, hooks);
}
