/**
 * webhook(): one notification from the service.
 *
 *   receive(this: IWebhookFunctions): Promise<IWebhookResponseData>
 *
 * Order: validate the envelope (400 with a short reason, nothing started) -> subscribed event? (200, nothing
 * started) -> seen before within the dedupe window? (200, nothing started) -> optionally re-read the
 * appointment (unknown: 200, nothing started, warning) -> start the workflow with one item (n8n answers 200 at
 * once: responseMode onReceived). Every rejection is logged at debug level with its reason, the event name and
 * the appointment key only (no other personal data).
 *
 * A key is remembered before "Verify with API" runs, so a duplicate arriving meanwhile is dropped; if the
 * re-read fails for any reason but 404 the key is forgotten again and the error is raised, so n8n answers 500
 * and the service's redelivery gets a fresh chance.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { getAppointment } from '../transport';
import { simplifyAppointment } from '../shared';
import { receiverConfig } from './config';
import { checkEnvelope, MAX_NAME } from './envelope';
import { forgetEvent, rememberEvent } from './dedupe';

/** A re-read must not keep the service's callback waiting for long. */
const VERIFY_POLICY = { maxAttempts: 3, maxWaitMs: 5000, timeoutMs: 10000 };

function keyOf(body: unknown): string | undefined {
	const data = (body as { data?: { appointment_key?: unknown } } | null)?.data;
	const key = data !== null && typeof data === 'object' ? data.appointment_key : undefined;
	return typeof key === 'string' && key.length <= MAX_NAME ? key : undefined;
}

function eventOf(body: unknown): string | undefined {
	const event = (body as { event?: unknown } | null)?.event;
	return typeof event === 'string' && event.length <= MAX_NAME ? event : undefined;
}

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

	const envelope = body as IDataObject & { event: string; timestamp: string; data: IDataObject };
	const event = envelope.event;
	const appointmentKey = envelope.data.appointment_key as string;
	if (!config.events.has(event)) {
		this.logger.debug(
			`Appointments Trigger: ignored ${JSON.stringify(event)}: not one of the subscribed events${config.eventsProblem ? ` (${config.eventsProblem})` : ''}`,
			{ ...where, event, appointmentKey },
		);
		return ignored('event not subscribed');
	}

	const store = config.store;
	const mode = config.options.dedupeKey;
	const timestamp = envelope.timestamp;
	if (!rememberEvent(store, mode, event, appointmentKey, timestamp)) {
		this.logger.debug(
			`Appointments Trigger: ignored a duplicate of ${JSON.stringify(event)} (dedupe key: ${config.options.dedupeKey})`,
			{ ...where, event, appointmentKey },
		);
		return ignored('duplicate');
	}

	let data: IDataObject = envelope.data;
	if (config.options.verifyWithApi) {
		try {
			data = await getAppointment(this, appointmentKey, { policy: VERIFY_POLICY });
		} catch (error) {
			if ((error as { httpCode?: unknown }).httpCode === '404') {
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
			forgetEvent(store, mode, event, appointmentKey, timestamp);
			// n8n answers 500, so the service sends the notification again later.
			throw new NodeOperationError(
				this.getNode(),
				`Could not verify appointment ${appointmentKey} with the API: ${(error as Error).message}`,
				{ description: (error as { description?: string }).description },
			);
		}
	}

	const json: IDataObject = config.options.simplify
		? { ...simplifyAppointment(data), event, timestamp }
		: data === envelope.data
			? envelope
			: { ...envelope, data };
	return { workflowData: [[{ json }]] };
}
