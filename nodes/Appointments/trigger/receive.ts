/**
 * webhook(): one notification from the service, on a path with no way back:
 *
 *   receive(this: IWebhookFunctions): Promise<IWebhookResponseData>
 *
 *   validate  the envelope (envelope.ts; 400 with a short reason, nothing started)
 *   config    the node's parameters (config.ts), read anew for every notification; one that cannot be read
 *             means the event cannot be evaluated: 503, so the service sends it again, and an error in n8n's log
 *             naming the field (nothing started, nothing remembered)
 *   match     a subscribed event (200, nothing started), the Filters on the notification's data unless Verify
 *             With API re-reads it (200, nothing started)
 *   dedupe    claim the event (dedupe.ts): a copy of one already settled answers duplicate (200, nothing started)
 *   verify    with Verify With API, re-read the appointment: one short attempt (VERIFY_POLICY); unknown (200,
 *             warning) or no longer matching the Filters (200) drops the claim (settled without a run); a failed
 *             or slow re-read, or an answer that is not this appointment's record, answers 500 and settles
 *             nothing, so the service's resend gets a fresh chance
 *   run       settle the claim as run and start the workflow with one item (n8n answers 200 at once:
 *             responseMode onReceived; an error answer forgets the event again)
 *
 * Every rejection that is not an error is logged at debug level with its reason, the event name and the
 * appointment key only (no other personal data).
 */
import {
	NodeOperationError,
	type IDataObject,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { getAppointment } from '../transport';
import { matches, triggerItem, type EventFilter } from '../shared';
import { receiverConfig, type ReceiverConfig } from './config';
import { checkEnvelope, MAX_NAME } from './envelope';
import { claimEvent, type Claim } from './dedupe';

/**
 * One attempt, well inside a callback time-out: the spec asks receivers to answer promptly, and a service that
 * gave up waiting would take any later answer for lost and resend. A failed attempt is retried by that resend.
 */
const VERIFY_POLICY = { maxAttempts: 1, timeoutMs: 4000 };

function appointmentKeyOf(body: unknown): string | undefined {
	const data = (body as { data?: { appointment_key?: unknown } } | null)?.data;
	const key = data !== null && typeof data === 'object' ? data.appointment_key : undefined;
	return typeof key === 'string' && key.length <= MAX_NAME ? key : undefined;
}

function eventOf(body: unknown): string | undefined {
	const event = (body as { event?: unknown } | null)?.event;
	return typeof event === 'string' && event.length <= MAX_NAME ? event : undefined;
}

type Envelope = IDataObject & { event: string; timestamp: string; data: IDataObject };

/** Log metadata: the workflow, the node, the event name and the appointment key (no other personal data). */
type Meta = { workflowId: string; node: string; event: string; appointmentKey: string };

/** A valid notification on its way through receive(). */
interface Delivery {
	ctx: IWebhookFunctions;
	config: ReceiverConfig;
	envelope: Envelope;
	meta: Meta;
}

export async function receive(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const body = this.getBodyData() as unknown;
	const node = this.getNode();
	const where = { workflowId: String(this.getWorkflow().id ?? ''), node: node.name };
	const problem = checkEnvelope(body);
	if (problem !== undefined) return invalid(this, where, body, problem);

	const envelope = body as Envelope;
	const appointmentKey = envelope.data.appointment_key as string;
	const meta = { ...where, event: envelope.event, appointmentKey };
	let config: ReceiverConfig;
	try {
		config = receiverConfig(this, node, where.workflowId);
	} catch (error) {
		return notEvaluated(this, meta, error as Error);
	}
	const d: Delivery = { ctx: this, config, envelope, meta };
	if (!config.events.has(envelope.event)) return ignored(d, 'event not subscribed', 'not one of the subscribed events');
	if (!config.options.verifyWithApi && !matches(config.filter, envelope.data)) return filteredOut(d);

	const claim = claimEvent(config.store, config.options.dedupeKey, { event: envelope.event, appointmentKey, timestamp: envelope.timestamp });
	if (claim === undefined) return duplicate(d);
	if (!config.options.verifyWithApi) {
		claim.run(this.getResponseObject());
		return started(d, envelope.data);
	}
	return await verifyThenRun(d, config.filter, claim);
}

/**
 * Verify With API. Every copy makes its own short re-read, even while another copy's is under way: sharing a slow
 * re-read's fate would refuse this copy too and leave the event for a third delivery. The first copy settled
 * wins, so a copy whose re-read ends later answers duplicate and starts nothing.
 */
async function verifyThenRun(d: Delivery, filter: EventFilter, claim: Claim): Promise<IWebhookResponseData> {
	const record = await reread(d.ctx, d.meta.appointmentKey);
	const runs = record !== undefined && matches(filter, record);
	const settled = runs ? claim.run(d.ctx.getResponseObject()) : claim.drop();
	if (!settled) return duplicate(d);
	if (record === undefined) {
		d.ctx.logger.warn(
			`Appointments Trigger: dropped ${JSON.stringify(d.envelope.event)}: the service does not know appointment ${JSON.stringify(d.meta.appointmentKey)} (Verify with API)`,
			d.meta,
		);
		d.ctx.logger.debug('Appointments Trigger: rejection reason: appointment not found (404)', d.meta);
		return notStarted('appointment not found');
	}
	if (!runs) return filteredOut(d);
	return started(d, record);
}

function notStarted(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, started: false, reason } };
}

function ignored(d: Delivery, reason: string, why: string): IWebhookResponseData {
	d.ctx.logger.debug(`Appointments Trigger: ignored ${JSON.stringify(d.envelope.event)}: ${why}`, d.meta);
	return notStarted(reason);
}

function filteredOut(d: Delivery): IWebhookResponseData {
	return ignored(d, 'filtered out', 'the appointment does not match the Filters');
}

function duplicate(d: Delivery): IWebhookResponseData {
	d.ctx.logger.debug(
		`Appointments Trigger: ignored a duplicate of ${JSON.stringify(d.envelope.event)} (dedupe key: ${d.config.options.dedupeKey})`,
		d.meta,
	);
	return notStarted('duplicate');
}

/** The node's own 400: n8n would answer 200 to anything webhook() returns. */
function invalid(ctx: IWebhookFunctions, where: Pick<Meta, 'workflowId' | 'node'>, body: unknown, problem: string): IWebhookResponseData {
	ctx.logger.debug(`Appointments Trigger: rejected an invalid notification (400): ${problem}`, {
		...where,
		event: eventOf(body),
		appointmentKey: appointmentKeyOf(body),
	});
	return answer(ctx, 400, { error: 'invalid notification', reason: problem });
}

/**
 * A parameter could not be read, so whether and how the event runs is unknown: it is not acknowledged. 503 asks
 * the service to send it again (spec: a non-2xx answer may cause a resend), which runs once the field is fixed.
 */
function notEvaluated(ctx: IWebhookFunctions, meta: Meta, error: Error): IWebhookResponseData {
	ctx.logger.error(
		`Appointments Trigger: could not evaluate ${JSON.stringify(meta.event)} for appointment ${JSON.stringify(meta.appointmentKey)}, answered 503 so that the service sends it again: ${error.message}`,
		meta,
	);
	return answer(ctx, 503, { received: true, started: false, reason: 'not evaluated' });
}

function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	const res = ctx.getResponseObject();
	res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
	res.end(JSON.stringify(body));
	return { noWebhookResponse: true };
}

/**
 * The service's current record; undefined when it does not know the appointment (404). A 2xx answer that is not
 * this appointment's record fails in the transport (getAppointment) like any failed re-read: it must not decide
 * the Filters nor become the item.
 */
async function reread(ctx: IWebhookFunctions, appointmentKey: string): Promise<IDataObject | undefined> {
	try {
		return await getAppointment(ctx, appointmentKey, { policy: VERIFY_POLICY });
	} catch (error) {
		if ((error as { httpCode?: unknown }).httpCode === '404') return undefined;
		// n8n answers 500, so the service sends the notification again later.
		throw new NodeOperationError(
			ctx.getNode(),
			`Could not verify appointment ${appointmentKey} with the API: ${(error as Error).message}`,
			{ description: (error as { description?: string }).description },
		);
	}
}

function started(d: Delivery, data: IDataObject): IWebhookResponseData {
	const { envelope } = d;
	const delivered = data === envelope.data ? envelope : { ...envelope, data };
	return { workflowData: [[triggerItem(delivered, d.config.options.simplify)]] };
}
