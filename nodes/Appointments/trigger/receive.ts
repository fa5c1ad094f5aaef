/**
 * webhook(): one notification from the service.
 *
 *   receive(this: IWebhookFunctions): Promise<IWebhookResponseData>
 *
 * Order: validate the envelope (400 with a short reason, nothing started) -> subscribed event? (200, nothing
 * started) -> matches the Filters (the re-read record's with Verify with API)? (200, nothing started) -> handled before within the dedupe window? (200, nothing started) -> optionally re-read the
 * appointment (unknown: 200, nothing started, warning) -> start the workflow with one item (n8n answers 200 at
 * once: responseMode onReceived). Every rejection is logged at debug level with its reason, the event name and
 * the appointment key only (no other personal data).
 *
 * A notification counts as handled (and its key is remembered) only once its workflow is started or it is dropped
 * for an unknown appointment; it is forgotten again when n8n then answers the delivery with an error (it could not
 * store or queue the execution), since the service resends it and that resend must run. While "Verify with API"
 * re-reads it, a copy arriving meanwhile makes its own re-read; whichever copy is settled first is remembered,
 * the other answers duplicate. A re-read that fails or takes longer than VERIFY_POLICY allows answers 500 and
 * leaves nothing remembered, so a resend gets a fresh chance.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { getAppointment } from '../transport';
import { matches, simplifyAppointment } from '../shared';
import { receiverConfig } from './config';
import { checkEnvelope, MAX_NAME } from './envelope';
import { dedupeKey, type RecentKeys } from './dedupe';

/**
 * One attempt, well inside a callback time-out: the spec asks receivers to answer promptly, and a service that
 * gave up waiting would take any later answer for lost and resend. A failed attempt is retried by that resend.
 */
const VERIFY_POLICY = { maxAttempts: 1, timeoutMs: 4000 };

function keyOf(body: unknown): string | undefined {
	const data = (body as { data?: { appointment_key?: unknown } } | null)?.data;
	const key = data !== null && typeof data === 'object' ? data.appointment_key : undefined;
	return typeof key === 'string' && key.length <= MAX_NAME ? key : undefined;
}

function eventOf(body: unknown): string | undefined {
	const event = (body as { event?: unknown } | null)?.event;
	return typeof event === 'string' && event.length <= MAX_NAME ? event : undefined;
}

type Envelope = IDataObject & { event: string; timestamp: string; data: IDataObject };

function ignored(reason: string): IWebhookResponseData {
	return { webhookResponse: { received: true, started: false, reason } };
}

export async function receive(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const body = this.getBodyData() as unknown;
	const config = receiverConfig(this);
	const where = config.where;

	const problem = checkEnvelope(body);
	if (problem !== undefined) {
		this.logger.debug(`Appointments Trigger: rejected an invalid notification (400): ${problem}`, {
			...where,
			event: eventOf(body),
			appointmentKey: keyOf(body),
		});
		const res = this.getResponseObject();
		res.writeHead(400, { 'Content-Type': 'application/json; charset=utf-8' });
		res.end(JSON.stringify({ error: 'invalid notification', reason: problem }));
		return { noWebhookResponse: true };
	}

	const envelope = body as Envelope;
	const event = envelope.event;
	const appointmentKey = envelope.data.appointment_key as string;
	if (!config.events.has(event)) {
		this.logger.debug(
			`Appointments Trigger: ignored ${JSON.stringify(event)}: not one of the subscribed events${config.eventsProblem ? ` (${config.eventsProblem})` : ''}`,
			{ ...where, event, appointmentKey },
		);
		return ignored('event not subscribed');
	}

	const filteredOut = () => {
		this.logger.debug(`Appointments Trigger: ignored ${JSON.stringify(event)}: the appointment does not match the Filters`, {
			...where,
			event,
			appointmentKey,
		});
		return ignored('filtered out');
	};
	if (config.filter === undefined) return filteredOut();
	if (!config.options.verifyWithApi && !matches(config.filter, envelope.data)) return filteredOut();

	const key = dedupeKey(config.options.dedupeKey, event, appointmentKey, envelope.timestamp);
	const memory = config.store !== undefined && key !== undefined ? { store: config.store, key } : undefined;
	const duplicate = () => {
		this.logger.debug(
			`Appointments Trigger: ignored a duplicate of ${JSON.stringify(event)} (dedupe key: ${config.options.dedupeKey})`,
			{ ...where, event, appointmentKey },
		);
		return ignored('duplicate');
	};
	if (memory?.store.has(memory.key)) return duplicate();
	if (!config.options.verifyWithApi) {
		if (memory !== undefined) rememberUnlessRefused(this, memory);
		return started(config.options.simplify, envelope, envelope.data);
	}

	// Every copy makes its own short re-read, even while another copy's is under way: sharing a slow re-read's
	// fate would refuse this copy too and leave the event for a third delivery. The first copy to be settled
	// claims the key (remember), so a copy whose re-read ends later answers duplicate and starts nothing.
	const record = await reread(this, appointmentKey);
	if (memory !== undefined && memory.store.has(memory.key)) return duplicate();
	if (record === undefined) {
		memory?.store.remember(memory.key);
		this.logger.warn(
			`Appointments Trigger: dropped ${JSON.stringify(event)}: the service does not know appointment ${JSON.stringify(appointmentKey)} (Verify with API)`,
			{ ...where, event, appointmentKey },
		);
		this.logger.debug('Appointments Trigger: rejection reason: appointment not found (404)', {
			...where,
			event,
			appointmentKey,
		});
		return ignored('appointment not found');
	}
	if (!matches(config.filter, record)) {
		// Handled: its current record does not match, so a resend would not either.
		memory?.store.remember(memory.key);
		return filteredOut();
	}
	if (memory !== undefined) rememberUnlessRefused(this, memory);
	return started(config.options.simplify, envelope, record);
}

/**
 * Remembers a notification whose workflow webhook() starts. n8n answers the delivery only after that, through
 * the same response: 2xx once the execution is stored (and queued, in queue mode); otherwise (e.g. 500 when no
 * database connection came in time) the workflow may never run and the service resends, which must not be
 * taken for a duplicate.
 */
function rememberUnlessRefused(ctx: IWebhookFunctions, memory: { store: RecentKeys; key: string }): void {
	memory.store.remember(memory.key);
	const res = ctx.getResponseObject();
	res.once('finish', () => {
		if (res.statusCode < 200 || res.statusCode > 299) memory.store.forget(memory.key);
	});
}

/** The service's current record; undefined when it does not know the appointment (404). */
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

function started(simplify: boolean, envelope: Envelope, data: IDataObject): IWebhookResponseData {
	const json: IDataObject = simplify
		? { ...simplifyAppointment(data), event: envelope.event, timestamp: envelope.timestamp }
		: data === envelope.data
			? envelope
			: { ...envelope, data };
	return { workflowData: [[{ json }]] };
}
