/**
 * Appointment requests. A mutation's answer that is an appointment is returned as is; an empty body or 204 is
 * read back with GET; anything else that is not a JSON object is an error, never reported as done.
 */
import { NodeApiError, type IDataObject, type JsonObject } from 'n8n-workflow';

import { isCancelled, notAppointmentReason } from '../../shared/appointmentRecord';
import { apiRequest, recordOf, responseError, type RequestPolicy, type TransportContext } from '../http';

type Opts = { itemIndex?: number; policy?: Partial<RequestPolicy> };

export function appointmentPath(key: string, suffix?: string): string {
	return `appointments/${encodeURIComponent(key)}/${suffix ? `${suffix.replace(/^\/+|\/+$/g, '')}/` : ''}`;
}

function labels(key: string, opts: Opts) {
	return { itemIndex: opts.itemIndex, policy: opts.policy, resource: `Appointment ${key}` };
}

export async function getAppointment(ctx: TransportContext, key: string, opts: Opts = {}): Promise<IDataObject> {
	const response = await apiRequest(ctx, 'GET', appointmentPath(key), labels(key, opts));
	return (await recordOf(ctx, response, 'GET', labels(key, opts), false)) as IDataObject;
}

/** PATCH of an appointment (status, reschedule): the updated appointment. */
export async function mutateAppointment(
	ctx: TransportContext,
	method: 'PATCH',
	path: string,
	key: string,
	opts: Opts & { qs?: IDataObject; body?: IDataObject } = {},
): Promise<IDataObject> {
	const response = await apiRequest(ctx, method, path, { ...labels(key, opts), qs: opts.qs, body: opts.body });
	const record = await recordOf(ctx, response, method, labels(key, opts));
	if (record?.appointment_key !== undefined) return record;
	return await getAppointment(ctx, key, opts);
}

/**
 * GET of one appointment: its record, or undefined when the service answers 404. An answer that is not this
 * appointment's record (a proxy's page, an empty body, `{}`, another appointment) is an error, never taken as it.
 */
export async function readAppointment(ctx: TransportContext, key: string, opts: Opts = {}): Promise<IDataObject | undefined> {
	const response = await apiRequest(ctx, 'GET', appointmentPath(key), { ...labels(key, opts), allowStatus: [404] });
	if (response.statusCode === 404) return undefined;
	const record = await recordOf(ctx, response, 'GET', labels(key, opts), false);
	const why = notAppointmentReason(record, key);
	if (why === undefined) return record;
	throw new NodeApiError(ctx.getNode(), { statusCode: response.statusCode } as JsonObject, {
		message: `The service's answer (${response.statusCode}) to the read of appointment ${key} is not that appointment (${why}); nothing is taken from it`,
		description: 'Check that the credential\'s Base URL is the service\'s API address; if it is, the service answered with something that is not this appointment.',
		httpCode: String(response.statusCode),
		itemIndex: opts.itemIndex,
	});
}

/**
 * DELETE with `send_email` always explicit. A DELETE that may have been processed (time-out, reset, 5xx) is
 * never sent again blindly, since a second one may e-mail the client twice: the appointment is read first;
 * cancelled (or gone, 404) means the earlier DELETE did it; only one still active is cancelled again.
 */
export async function cancelAppointment(
	ctx: TransportContext,
	key: string,
	sendEmail: boolean,
	opts: Opts & { checkFirst?: boolean } = {},
): Promise<IDataObject> {
	const gone = { appointment_key: key, canceled: true };
	if (opts.checkFirst) {
		// n8n's Retry On Fail re-runs every item: one an earlier run cancelled is returned as it is, not cancelled
		// (and its client e-mailed) again.
		const read = await apiRequest(ctx, 'GET', appointmentPath(key), { ...labels(key, opts), allowStatus: [404] });
		const record = read.statusCode === 404 ? undefined : await recordOf(ctx, read, 'GET', labels(key, opts), false);
		if (record !== undefined && isCancelled(record)) return record;
	}
	const response = await apiRequest(
		ctx,
		'DELETE',
		appointmentPath(key),
		{ ...labels(key, opts), qs: { send_email: sendEmail ? 'true' : 'false' }, allowStatus: [404] },
		{
			beforeRetry: async () => {
				const read = await apiRequest(ctx, 'GET', appointmentPath(key), { ...labels(key, opts), allowStatus: [404] });
				if (read.statusCode !== 404) {
					const record = (await recordOf(ctx, read, 'GET', labels(key, opts), false)) as IDataObject;
					if (!isCancelled(record)) return undefined;
				}
				ctx.logger?.debug('Appointments API: an unanswered cancel went through; not sending it again');
				return { ...read, afterAmbiguousFailure: true };
			},
		},
	);
	if (response.statusCode === 404) {
		if (response.afterAmbiguousFailure) return gone;
		throw await responseError(ctx, response, 'DELETE', labels(key, opts));
	}
	const record = await recordOf(ctx, response, 'DELETE', labels(key, opts));
	if (record?.appointment_key !== undefined) return record;
	const readBack = await apiRequest(ctx, 'GET', appointmentPath(key), { ...labels(key, opts), allowStatus: [404] });
	if (readBack.statusCode === 404) return gone;
	return (await recordOf(ctx, readBack, 'GET', labels(key, opts), false)) as IDataObject;
}
