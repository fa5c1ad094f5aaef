/**
 * Webhook create: POST /api/v3/webhooks/, never leaving a second subscription behind. POST is not idempotent:
 * when an answer is lost (time-out, reset, 5xx other than 503) the list is read first and the subscription the
 * service stored is adopted instead of sending the create again. Only a subscription that was not in the list
 * before the first POST can be adopted: an identical older one belongs to someone else (a later Delete of "our"
 * key would remove it). After a time-out the service may still be storing it, so the create is never sent
 * again: the list is watched until it shows up or the wait budget is spent. 429/503 (not processed) and refused
 * connections are simply retried. An empty answer (201/204 without a body) is read back from the list the same way.
 */
import { sleep, type IDataObject } from 'n8n-workflow';

import { keyOf, sameEvents, validateWebhookInput, type WebhookInput } from '../../shared/webhookInput';
import {
	apiError,
	apiRequest,
	credentialInfo,
	recordOf,
	resolvePolicy,
	unconfirmedError,
	type ApiResponse,
	type Outcome,
	type RetryBudget,
	type TransportContext,
} from '../http';
import { listWebhooks, type WebhookOpts } from './webhookCalls';

export async function createWebhook(
	ctx: TransportContext,
	input: WebhookInput,
	opts: WebhookOpts = {},
): Promise<IDataObject> {
	const body = validateWebhookInput(ctx.getNode(), input, opts.itemIndex);
	const policy = resolvePolicy(opts.policy);
	const labels = { itemIndex: opts.itemIndex, resource: 'webhooks' };

	const before = new Set((await listWebhooks(ctx, opts)).map(keyOf));
	const stored = async (): Promise<ApiResponse | undefined> => {
		const match = (await listWebhooks(ctx, opts)).find(
			(w) => !before.has(keyOf(w)) && w.url === body.url && sameEvents(w.events, body.events),
		);
		if (!match) return undefined;
		ctx.logger?.debug('Appointments API: adopted the webhook stored by an unanswered create');
		return { statusCode: 200, body: match, attempts: 0, url: '' };
	};

	// After a time-out the service may still be working on the create: look again, with growing pauses, until the
	// subscription shows up or the wait budget is spent; send nothing.
	const watch = async (outcome: Outcome, budget: RetryBudget): Promise<ApiResponse> => {
		let waited = 0;
		for (let round = 0; ; round++) {
			const left = budget.remainingMs - waited;
			if (left <= 0) {
				throw apiError(ctx, await credentialInfo(ctx), outcome, { method: 'POST', url: 'webhooks/' }, labels, {
					attempts: budget.attempts,
					waitedMs: budget.waitedMs + waited,
					reason:
						'the service may still process the request that timed out, so it was not sent again; check before trying again',
				});
			}
			const delay = Math.min(left, Math.max(50, policy.baseDelayMs) * Math.pow(2, Math.min(round, 6)));
			ctx.logger?.debug(`Appointments API: POST outcome still unknown; looking again in ${delay} ms`);
			await sleep(delay);
			waited += delay;
			const found = await stored();
			if (found) return found;
		}
	};

	const response = await apiRequest<IDataObject>(
		ctx,
		'POST',
		'webhooks/',
		{ body: { url: body.url, events: body.events }, ...labels, policy: opts.policy, idempotent: false },
		{
			retryable: (outcome) => outcome.kind === 'network' || [429, 500, 502, 503, 504].includes(outcome.statusCode),
			beforeRetry: async (outcome, budget) =>
				(await stored()) ?? (outcome.kind === 'network' && outcome.timedOut ? await watch(outcome, budget) : undefined),
		},
	);
	const record = await recordOf(ctx, response, 'POST', labels);
	if (record !== undefined) return record;
	const readBack = await stored();
	if (readBack) return readBack.body as IDataObject;
	throw unconfirmedError(ctx, response.statusCode, 'a new webhook with this URL and these events', opts.itemIndex);
}
