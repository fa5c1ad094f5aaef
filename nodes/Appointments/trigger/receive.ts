/**
 * webhook(): one notification, one way through (docs/architecture.md, "A webhook delivery's path"). An answer that
 * starts nothing is logged at debug level with the event name and the appointment key only (no personal data).
 */
import { DateTime } from 'luxon';
import {
	NodeOperationError,
	type IDataObject,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { readAppointment } from '../transport/resources/appointmentCalls.js';
import { matches } from '../shared/eventFilter.js';
import { canonicalUuid } from '../shared/validation.js';
import { triggerItem, type DeliveredEvent } from '../shared/simplify.js';
import { receiverConfig, type ReceiverConfig } from './config.js';
import { checkEnvelope } from './envelope.js';
import { claimEvent, type Claim, type Settled } from './dedupe.js';

// One attempt, well inside a callback time-out: a service that gave up waiting would resend anyway, and that
// resend retries a failed re-read.
const VERIFY_POLICY = { maxAttempts: 1, timeoutMs: 4000 };

type Meta = { workflowId: string; node: string; event?: string; appointmentKey?: string };

/** A valid notification on its way through receive(). */
type Delivery = {
	ctx: IWebhookFunctions;
	config: ReceiverConfig;
	envelope: DeliveredEvent;
	meta: Meta;
};

export async function receive(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const body = this.getBodyData() as unknown;
	const node = this.getNode();
	const where = { workflowId: String(this.getWorkflow().id ?? ''), node: node.name };
	const problem = checkEnvelope(body);
	if (problem !== undefined) return invalid(this, where, problem);

	const envelope = body as DeliveredEvent;
	const appointmentKey = canonicalUuid(envelope.data.appointment_key)!;
	const meta = { ...where, event: envelope.event, appointmentKey };
	let config: ReceiverConfig;
	try {
		config = receiverConfig(this, node, where.workflowId);
	} catch (error) {
		return notEvaluated(this, meta, error as Error);
	}
	const d: Delivery = { ctx: this, config, envelope, meta };
	if (!config.events.includes(envelope.event)) return notStarted(d, 'event not subscribed');
	const verify = config.options.verifyWithApi;
	if (!verify && !matches(config.filter, envelope.data)) return notStarted(d, 'filtered out');

	const n = { event: envelope.event, appointmentKey, timestamp: envelope.timestamp };
	const claim = claimEvent(config.store, config.options.dedupeKey, n, this.getResponseObject());
	if (claim === undefined) return notStarted(d, 'duplicate');
	if (verify) return await verifyThenRun(d, claim);
	return settled(d, await claim.settle('run'), envelope.data);
}

/** How long after its event an unknown appointment (404) is asked for again (503): a service may notify before the
 * record is readable (read-after-write lag). Then the event is logged and dropped. */
export const NOT_FOUND_RESEND_MINUTES = 10;

/**
 * Verify With API. Every copy makes its own short re-read: sharing a slow one's fate would refuse this copy too.
 * The first copy settled wins, so a copy whose re-read ends later answers duplicate once that copy's run was answered 2xx.
 */
async function verifyThenRun(d: Delivery, claim: Claim): Promise<IWebhookResponseData> {
	const record = await reread(d);
	// A service that deletes what it cancels: for a cancellation, the delivered data is all there is.
	const data = record ?? (/cancel/i.test(d.envelope.event) ? d.envelope.data : undefined);
	if (data !== undefined)
		return settled(d, await claim.settle(matches(d.config.filter, data) ? 'run' : 'drop'), data);
	const age = Date.now() - DateTime.fromISO(d.envelope.timestamp).toMillis();
	if (age > NOT_FOUND_RESEND_MINUTES * 60_000) {
		const got = await claim.settle('drop');
		return got === 'dropped' ? notStarted(d, 'appointment not found') : settled(d, got, {});
	}
	return resend(d, 'appointment not found yet');
}

const NOT_RUN = { dropped: 'filtered out', taken: 'duplicate', hungUp: 'caller hung up' } as const;

/** The answer to how a claim settled: data is what a run outputs. */
function settled(d: Delivery, got: Settled, data: IDataObject): IWebhookResponseData {
	if (got === 'ran')
		return { workflowData: [[triggerItem({ ...d.envelope, data }, d.config.options.simplify)]] };
	return got === 'busy' ? resend(d, 'busy') : notStarted(d, NOT_RUN[got]);
}

/**
 * The service's current record; undefined when it does not know the appointment (404). A 2xx that is not this
 * appointment's record fails like any failed re-read: n8n answers 500, the service resends.
 */
async function reread(d: Delivery): Promise<IDataObject | undefined> {
	try {
		return await readAppointment(d.ctx, d.meta.appointmentKey!, { policy: VERIFY_POLICY });
	} catch (error) {
		const description = (error as { description?: string }).description;
		throw new NodeOperationError(
			d.ctx.getNode(),
			`Could not verify appointment ${d.meta.appointmentKey} with the API: ${(error as Error).message}`,
			{ description },
		);
	}
}

/** Why a delivery answered 200 starts nothing, as its log line says it. */
const WHY = {
	'event not subscribed': 'it is not one of the subscribed events',
	'filtered out': 'the appointment does not match the Filters',
	duplicate: 'it is a duplicate (Dedupe Key)',
	'caller hung up': 'the caller hung up before its run (the service resends it)',
	'appointment not found': `the service still does not know the appointment ${NOT_FOUND_RESEND_MINUTES} minutes after the event (Verify with API)`,
};

function notStarted(d: Delivery, reason: keyof typeof WHY): IWebhookResponseData {
	const level = reason === 'appointment not found' ? 'warn' : 'debug';
	d.ctx.logger[level](
		`Appointments Trigger: ignored ${JSON.stringify(d.envelope.event)} of appointment ${JSON.stringify(d.meta.appointmentKey)}: ${WHY[reason]}`,
		d.meta,
	);
	return { webhookResponse: { received: true, started: false, reason } };
}

/** The node's own 400: n8n would answer 200 to anything webhook() returns. */
function invalid(ctx: IWebhookFunctions, where: Meta, problem: string): IWebhookResponseData {
	ctx.logger.debug(
		`Appointments Trigger: rejected an invalid notification (400): ${problem}`,
		where,
	);
	return answer(ctx, 400, { error: 'invalid notification', reason: problem });
}

/** Whether and how the event runs is unknown: 503, not acknowledged, so the service resends it once it is fixed. */
function notEvaluated(ctx: IWebhookFunctions, meta: Meta, error: Error): IWebhookResponseData {
	ctx.logger.error(
		`Appointments Trigger: could not evaluate ${JSON.stringify(meta.event)} for appointment ${JSON.stringify(meta.appointmentKey)}, answered 503 so that the service sends it again: ${error.message}`,
		meta,
	);
	return answer(ctx, 503, { received: true, started: false, reason: 'not evaluated' });
}

/** 503, logged at debug level: not acknowledged, so the service sends the event again. */
function resend(d: Delivery, reason: string): IWebhookResponseData {
	const event = `${JSON.stringify(d.envelope.event)} of appointment ${JSON.stringify(d.meta.appointmentKey)}`;
	d.ctx.logger.debug(`Appointments Trigger: answered 503 (${reason}) to ${event}`, d.meta);
	return answer(d.ctx, 503, { received: true, started: false, reason });
}

function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	const res = ctx.getResponseObject();
	res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
	res.end(JSON.stringify(body));
	return { noWebhookResponse: true };
}
