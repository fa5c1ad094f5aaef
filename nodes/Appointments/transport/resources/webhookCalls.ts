/**
 * Webhook subscription requests: list, create, update (PUT) and delete. A create never leaves a second subscription
 * behind: when an answer is lost (time-out, reset, 5xx but 503) the list is read and the subscription the service
 * stored adopted instead of posting again (only one not listed before the first POST: an identical older one is
 * someone else's). `firstRun` (one object per item across n8n's Retry On Fail re-runs: actions/reruns.ts) keeps the
 * first run's list, where a re-run finds what the first run stored.
 */
import { sleep, type IDataObject } from 'n8n-workflow';

import { keyOf, sameEvents, type WebhookInput } from '../../shared/webhookInput.js';
import {
	apiError,
	recordOf,
	responseError,
	unconfirmedError,
	type ErrorLabels,
} from '../http/apiErrors.js';
import { apiRequest, type ApiResponse, type RetryBudget } from '../http/apiRequest.js';
import {
	credentialInfo,
	resolvePolicy,
	type RequestPolicy,
	type TransportContext,
} from '../http/credentialInfo.js';
import type { SendResult } from '../http/httpAttempt.js';
import { paginateAll } from '../list/paginate.js';

type WebhookOpts = { itemIndex?: number; policy?: Partial<RequestPolicy> };

/** Every subscription, or the first `limit` (a bare array or a paginated list). */
export async function listWebhooks(
	ctx: TransportContext,
	opts: WebhookOpts & { limit?: number } = {},
): Promise<IDataObject[]> {
	const { itemIndex, policy, limit } = opts;
	const list = { limit, itemIndex, policy, keyField: 'webhook_key', resource: 'webhooks' };
	return await paginateAll<IDataObject>(ctx, 'webhooks/', undefined, list);
}

/** `input` is checked by the caller before anything is sent (Webhook › Update's prepare, the trigger). */
export async function updateWebhook(
	ctx: TransportContext,
	key: string,
	input: WebhookInput,
	opts: WebhookOpts = {},
): Promise<IDataObject> {
	const labels = { itemIndex: opts.itemIndex, resource: `Webhook ${key}` };
	const body = { url: input.url, events: input.events };
	const request = { ...labels, body, policy: opts.policy };
	const response = await apiRequest(ctx, 'PUT', `webhooks/${encodeURIComponent(key)}/`, request);
	const record = await recordOf(ctx, response, 'PUT', labels);
	if (record !== undefined && keyOf(record) !== '') return record;
	// An answer without the subscription (empty, a message): the spec has no single-webhook read, so the list says.
	const listed = (await listWebhooks(ctx, opts)).find((w) => keyOf(w) === key);
	if (listed) return listed;
	throw unconfirmedError(ctx, response.statusCode, `webhook ${key}`, opts.itemIndex);
}

/** `keyAsListed`: the webhook_key as the list gives it (a number stays a number), at the cost of reading the list. */
export async function deleteWebhook(
	ctx: TransportContext,
	key: string,
	opts: WebhookOpts & { notFoundIsSuccess?: boolean; keyAsListed?: boolean } = {},
): Promise<{ deleted: true; webhook_key: string | number; alreadyGone?: true }> {
	let shownKey: string | number = key;
	if (opts.keyAsListed) {
		const listed = (await listWebhooks(ctx, opts)).find((w) => keyOf(w) === key)?.webhook_key;
		if (typeof listed === 'number') shownKey = listed;
	}
	const labels = { itemIndex: opts.itemIndex, resource: `Webhook ${key}` };
	// Where n8n's Retry On Fail sends it again, a lost answer is checked first: a re-run would find it gone (404).
	const beforeRetry = async () =>
		(await listWebhooks(ctx, opts)).some((w) => keyOf(w) === key)
			? undefined
			: { statusCode: 404, body: undefined, attempts: 0, url: '', afterAmbiguousFailure: true };
	const request = { ...labels, policy: opts.policy, allowStatus: [404] };
	const hooks = opts.policy?.leaveToRetryOnFail ? { beforeRetry } : {};
	const path = `webhooks/${encodeURIComponent(key)}/`;
	const response = await apiRequest(ctx, 'DELETE', path, request, hooks);
	if (response.statusCode === 404) {
		// A 404 after a failed first attempt means that attempt deleted it.
		if (opts.notFoundIsSuccess || response.afterAmbiguousFailure)
			return { deleted: true, webhook_key: shownKey, alreadyGone: true };
		throw await responseError(ctx, response, 'DELETE', labels);
	}
	// A 2xx that is neither empty nor a JSON object (a proxy's login page) did not delete anything.
	await recordOf(ctx, response, 'DELETE', labels);
	return { deleted: true, webhook_key: shownKey };
}

/** The keys listed before the item's first POST, and whether a POST of it timed out (then it is never sent again). */
export type FirstRun = { before: Set<string>; timedOut: boolean };

type Create = {
	ctx: TransportContext;
	body: { url: string; events: string[] };
	opts: CreateOpts;
	labels: ErrorLabels;
	policy: RequestPolicy;
	run: FirstRun;
};

type CreateOpts = WebhookOpts & { firstRun?: Partial<FirstRun> };

/** The subscription this create stored, when the list shows one that was not there before its first POST. */
async function stored(c: Create): Promise<ApiResponse | undefined> {
	const match = (await listWebhooks(c.ctx, c.opts)).find(
		(w) =>
			!c.run.before.has(keyOf(w)) && w.url === c.body.url && sameEvents(w.events, c.body.events),
	);
	if (!match) return undefined;
	c.ctx.logger?.debug('Appointments API: adopted the webhook stored by an unanswered create');
	return { statusCode: 200, body: match, attempts: 0, url: '' };
}

/** After a time-out the service may still be storing it: look again, pausing longer each time, nothing posted again. */
async function watch(c: Create, outcome: SendResult, budget: RetryBudget): Promise<ApiResponse> {
	let waited = 0;
	for (let round = 0; ; round++) {
		const left = budget.remainingMs - waited;
		if (left <= 0) {
			const reason =
				'the service may still process the request that timed out, so it was not sent again; check before trying again';
			throw apiError(
				c.ctx,
				await credentialInfo(c.ctx),
				outcome,
				{ method: 'POST', url: 'webhooks/' },
				c.labels,
				{ attempts: budget.attempts, waitedMs: budget.waitedMs + waited, reason },
			);
		}
		const delay = Math.min(
			left,
			Math.max(50, c.policy.baseDelayMs) * Math.pow(2, Math.min(round, 6)),
		);
		c.ctx.logger?.debug(
			`Appointments API: POST outcome still unknown; looking again in ${delay} ms`,
		);
		await sleep(delay);
		waited += delay;
		const found = await stored(c);
		if (found) return found;
	}
}

async function post(c: Create): Promise<IDataObject> {
	const retryable = (outcome: SendResult) => {
		if (outcome.kind === 'network' && outcome.timedOut) c.run.timedOut = true;
		return outcome.kind === 'network' || [429, 500, 502, 503, 504].includes(outcome.statusCode);
	};
	const beforeRetry = async (outcome: SendResult, budget: RetryBudget) =>
		(await stored(c)) ??
		(outcome.kind === 'network' && outcome.timedOut ? await watch(c, outcome, budget) : undefined);
	const request = { body: c.body, ...c.labels, policy: c.opts.policy };
	const hooks = { retryable, beforeRetry };
	const response = await apiRequest<IDataObject>(c.ctx, 'POST', 'webhooks/', request, hooks);
	// An answer without the subscription's key (an empty body, a message) is not the subscription: the list decides.
	const record = await recordOf(c.ctx, response, 'POST', c.labels);
	if (record !== undefined && keyOf(record) !== '') return record;
	const readBack = await stored(c);
	if (readBack) return readBack.body as IDataObject;
	const what = 'a new webhook with this URL and these events';
	throw unconfirmedError(c.ctx, response.statusCode, what, c.opts.itemIndex);
}

/** `input` is checked by the caller before anything is sent (Webhook › Create's prepare, the trigger's create). */
export async function createWebhook(
	ctx: TransportContext,
	input: WebhookInput,
	opts: CreateOpts = {},
): Promise<IDataObject> {
	const policy = resolvePolicy(opts.policy);
	const labels = { itemIndex: opts.itemIndex, resource: 'webhooks' };
	const earlier = opts.firstRun?.before !== undefined ? (opts.firstRun as FirstRun) : undefined;
	const run =
		earlier ??
		Object.assign(opts.firstRun ?? {}, {
			before: new Set((await listWebhooks(ctx, opts)).map(keyOf)),
			timedOut: false,
		});
	const body = { url: input.url, events: input.events };
	const c: Create = { ctx, body, opts, labels, policy, run };
	if (earlier) {
		// A re-run: what an earlier run stored is this item's subscription, whether or not that run heard the answer.
		const found = await stored(c);
		if (found) return found.body as IDataObject;
		const timedOut: SendResult = {
			kind: 'network',
			code: 'ETIMEDOUT',
			timedOut: true,
			refused: false,
			detail: 'the create timed out on an earlier try of the node',
		};
		if (earlier.timedOut)
			return (await watch(c, timedOut, { attempts: 1, waitedMs: 0, remainingMs: policy.maxWaitMs }))
				.body as IDataObject;
	}
	return await post(c);
}
