/**
 * webhook(): one notification, one way through (docs/architecture.md, "A webhook delivery's path"). An answer that
 * starts nothing is logged at debug level with the event name and the appointment key only (no personal data).
 */
import {
	NodeOperationError,
	type IDataObject,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { DateTime } from 'luxon';

import { getAppointment } from '../transport/resources/appointmentCalls.js';
import { matches } from '../shared/eventFilter.js';
import { canonicalUuid } from '../shared/validation.js';
import { triggerItem, type DeliveredEvent } from '../shared/simplify.js';
import { receiverConfig, type ReceiverConfig } from './config.js';
import { checkEnvelope, MAX_NAME } from './envelope.js';
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
	if (problem !== undefined) return invalid(this, where, body, problem);

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
	if (!config.events.includes(envelope.event))
		return notStarted(
			d,
			'event not subscribed',
			`ignored ${JSON.stringify(envelope.event)}: not one of the subscribed events`,
		);
	const verify = config.options.verifyWithApi;
	if (!verify && !matches(config.filter, envelope.data)) return filteredOut(d);

	const n = { event: envelope.event, appointmentKey, timestamp: envelope.timestamp };
	const claim = claimEvent(config.store, config.options.dedupeKey, n, this.getResponseObject());
	if (claim === undefined) return duplicate(d);
	if (verify) return await verifyThenRun(d, claim);
	return settled(d, await claim.settle('run'), envelope.data);
}

/**
 * How long after its event an appointment the service does not know (404) is asked for again (answered 503): a
 * service may notify before the record is readable (read-after-write lag). Then the event is logged and dropped.
 */
export const NOT_FOUND_RESEND_MINUTES = 10;

/**
 * Verify With API. Every copy makes its own short re-read: sharing a slow one's fate would refuse this copy too.
 * The first copy settled wins, so a copy whose re-read ends later answers duplicate once that copy's run was answered 2xx.
 */
async function verifyThenRun(d: Delivery, claim: Claim): Promise<IWebhookResponseData> {
	const record = await reread(d.ctx, d.meta.appointmentKey!);
	// A service that deletes what it cancels: for a cancellation, the delivered data is all there is.
	const data = record ?? (/cancel/i.test(d.envelope.event) ? d.envelope.data : undefined);
	if (data === undefined) return await notFound(d, claim);
	return settled(d, await claim.settle(matches(d.config.filter, data) ? 'run' : 'drop'), data);
}

/** Another event of an appointment the service does not know: resent while it is recent, then dropped. */
async function notFound(d: Delivery, claim: Claim): Promise<IWebhookResponseData> {
	const event = JSON.stringify(d.envelope.event);
	const key = JSON.stringify(d.meta.appointmentKey);
	const age = Date.now() - DateTime.fromISO(d.envelope.timestamp).toMillis();
	if (age <= NOT_FOUND_RESEND_MINUTES * 60_000) {
		d.ctx.logger.debug(
			`Appointments Trigger: answered 503 to ${event}: the service does not know appointment ${key} yet (Verify with API), so that it resends it`,
			d.meta,
		);
		return answer(d.ctx, 503, {
			received: true,
			started: false,
			reason: 'appointment not found yet',
		});
	}
	const got = await claim.settle('drop');
	if (got !== 'dropped') return settled(d, got, d.envelope.data);
	d.ctx.logger.warn(
		`Appointments Trigger: dropped ${event}: the service still does not know appointment ${key} ${NOT_FOUND_RESEND_MINUTES} minutes after the event (Verify with API)`,
		d.meta,
	);
	return { webhookResponse: { received: true, started: false, reason: 'appointment not found' } };
}

/** The answer to how a claim settled: record is what a run outputs. */
function settled(d: Delivery, got: Settled, record: IDataObject): IWebhookResponseData {
	if (got === 'ran') return started(d, record);
	if (got === 'dropped') return filteredOut(d);
	if (got === 'taken') return duplicate(d);
	if (got === 'busy') return answer(d.ctx, 503, { received: true, started: false, reason: 'busy' });
	const log = `did not start ${JSON.stringify(d.envelope.event)}: the caller hung up before its run (the service resends it)`;
	return notStarted(d, 'caller hung up', log);
}

/**
 * The service's current record; undefined when it does not know the appointment (404). A 2xx that is not this
 * appointment's record fails in getAppointment like any failed re-read: n8n answers 500, the service resends.
 */
async function reread(
	ctx: IWebhookFunctions,
	appointmentKey: string,
): Promise<IDataObject | undefined> {
	try {
		return await getAppointment(ctx, appointmentKey, { policy: VERIFY_POLICY });
	} catch (error) {
		if ((error as { httpCode?: unknown }).httpCode === '404') return undefined;
		const description = (error as { description?: string }).description;
		throw new NodeOperationError(
			ctx.getNode(),
			`Could not verify appointment ${appointmentKey} with the API: ${(error as Error).message}`,
			{ description },
		);
	}
}

function started(d: Delivery, data: IDataObject): IWebhookResponseData {
	const delivered = data === d.envelope.data ? d.envelope : { ...d.envelope, data };
	return { workflowData: [[triggerItem(delivered, d.config.options.simplify)]] };
}

/** 200 without a run, logged at debug level. */
function notStarted(d: Delivery, reason: string, log: string): IWebhookResponseData {
	d.ctx.logger.debug(`Appointments Trigger: ${log}`, d.meta);
	return { webhookResponse: { received: true, started: false, reason } };
}

function filteredOut(d: Delivery): IWebhookResponseData {
	return notStarted(
		d,
		'filtered out',
		`ignored ${JSON.stringify(d.envelope.event)}: the appointment does not match the Filters`,
	);
}

function duplicate(d: Delivery): IWebhookResponseData {
	return notStarted(
		d,
		'duplicate',
		`ignored a duplicate of ${JSON.stringify(d.envelope.event)} (dedupe key: ${d.config.options.dedupeKey})`,
	);
}

/** A name of an invalid body, for its log line, when it is a string of sensible length. */
const nameIn = (value: unknown) =>
	typeof value === 'string' && value.length <= MAX_NAME ? value : undefined;

/** The node's own 400: n8n would answer 200 to anything webhook() returns. */
function invalid(
	ctx: IWebhookFunctions,
	where: Meta,
	body: unknown,
	problem: string,
): IWebhookResponseData {
	const b = body as { event?: unknown; data?: { appointment_key?: unknown } } | null;
	const meta = {
		...where,
		event: nameIn(b?.event),
		appointmentKey: nameIn(b?.data?.appointment_key),
	};
	ctx.logger.debug(
		`Appointments Trigger: rejected an invalid notification (400): ${problem}`,
		meta,
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

function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	const res = ctx.getResponseObject();
	res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
	res.end(JSON.stringify(body));
	return { noWebhookResponse: true };
}
