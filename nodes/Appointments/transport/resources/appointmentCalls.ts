/**
 * Appointment requests. A mutation's answer that names the appointment is returned as is (some services answer
 * with the changed fields only); an empty body, a 204 or a JSON object about something else is read back with GET;
 * anything else is an error, never reported as done. A read that is not the appointment, or is its record without a
 * usable status or start (shared/appointmentRecord.ts), is an error that says which, never output.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	isCancelled,
	notAppointmentReason,
	unreadableReason,
} from '../../shared/appointmentRecord.js';
import { apiRequest, type ApiResponse } from '../http/apiRequest.js';
import { answerError, recordOf, responseError } from '../http/apiErrors.js';
import type { RequestPolicy, TransportContext } from '../http/credentialInfo.js';

/** `unreadable`: a record of the appointment that cannot be used is returned (the polling trigger skips it). */
type Opts = { itemIndex?: number; policy?: Partial<RequestPolicy>; unreadable?: 'return' };

export function appointmentPath(key: string, suffix?: string): string {
	return `appointments/${encodeURIComponent(key)}/${suffix ? `${suffix.replace(/^\/+|\/+$/g, '')}/` : ''}`;
}

function labels(key: string, opts: Opts) {
	return { itemIndex: opts.itemIndex, policy: opts.policy, resource: `Appointment ${key}` };
}

export async function getAppointment(
	ctx: TransportContext,
	key: string,
	opts: Opts = {},
): Promise<IDataObject> {
	const response = await apiRequest(ctx, 'GET', appointmentPath(key), labels(key, opts));
	return await checkedRecord(ctx, key, response, opts);
}

/** PATCH of an appointment (status, reschedule): the updated appointment. */
export async function mutateAppointment(
	ctx: TransportContext,
	method: 'PATCH',
	path: string,
	key: string,
	opts: Opts & { qs?: IDataObject; body?: IDataObject } = {},
): Promise<IDataObject> {
	const request = { ...labels(key, opts), qs: opts.qs, body: opts.body };
	const response = await apiRequest(ctx, method, path, request);
	const record = await recordOf(ctx, response, method, labels(key, opts));
	return notAppointmentReason(record, key) ? await getAppointment(ctx, key, opts) : record!;
}

/** GET of one appointment: its record, or undefined when the service answers 404. */
export async function readAppointment(ctx: TransportContext, key: string, opts: Opts = {}) {
	const request = { ...labels(key, opts), allowStatus: [404] };
	const response = await apiRequest(ctx, 'GET', appointmentPath(key), request);
	return response.statusCode === 404 ? undefined : await checkedRecord(ctx, key, response, opts);
}

async function checkedRecord(ctx: TransportContext, key: string, res: ApiResponse, opts: Opts) {
	const record = (await recordOf(ctx, res, 'GET', labels(key, opts), false)) as IDataObject;
	const notIt = notAppointmentReason(record, key);
	const why = notIt ?? (opts.unreadable ? undefined : unreadableReason(record));
	if (why === undefined) return record;
	const message = notIt
		? `The service's answer (${res.statusCode}) to the read of appointment ${key} is not that appointment (${why}); nothing is taken from it`
		: `The service's record of appointment ${key} cannot be used: ${why}; nothing is taken from it`;
	const description = notIt
		? "Check that the credential's Base URL is the service's API address; if it is, the service answered with something that is not this appointment."
		: 'The nodes need a text status and a start_date with a date, time and offset. Check this appointment in the service.';
	throw answerError(ctx, res.statusCode, message, description, opts.itemIndex);
}

/**
 * DELETE (`send_email` explicit) only of an appointment read as not cancelled: a DELETE may e-mail the client again,
 * and Retry On Fail re-runs items an earlier run cancelled. After a DELETE that may have been processed, the
 * appointment is read: cancelled or gone (404) means it was; only one still active is cancelled again. A 404 on
 * the first read leaves it to the DELETE.
 * `alreadyCancelled`: no DELETE was sent, nobody e-mailed; `record` is `{ appointment_key, canceled: true }` once gone.
 */
export async function cancelAppointment(
	ctx: TransportContext,
	key: string,
	sendEmail: boolean,
	opts: Opts = {},
): Promise<{ record: IDataObject; alreadyCancelled: boolean }> {
	const before = await readAppointment(ctx, key, opts);
	if (before !== undefined && isCancelled(before))
		return { record: before, alreadyCancelled: true };
	return { record: await deleteAppointment(ctx, key, sendEmail, opts), alreadyCancelled: false };
}

async function deleteAppointment(
	ctx: TransportContext,
	key: string,
	sendEmail: boolean,
	opts: Opts,
): Promise<IDataObject> {
	const gone = { appointment_key: key, canceled: true };
	const beforeRetry = async () => {
		const request = { ...labels(key, opts), allowStatus: [404] };
		const read = await apiRequest(ctx, 'GET', appointmentPath(key), request);
		if (
			read.statusCode !== 404 &&
			!isCancelled((await recordOf(ctx, read, 'GET', labels(key, opts), false)) as IDataObject)
		)
			return undefined;
		ctx.logger?.debug('Appointments API: an unanswered cancel went through; not sending it again');
		return { ...read, afterAmbiguousFailure: true };
	};
	const qs = { send_email: sendEmail ? 'true' : 'false' };
	const request = { ...labels(key, opts), qs, allowStatus: [404] };
	const response = await apiRequest(ctx, 'DELETE', appointmentPath(key), request, { beforeRetry });
	if (response.statusCode === 404) {
		if (response.afterAmbiguousFailure) return gone;
		throw await responseError(ctx, response, 'DELETE', labels(key, opts));
	}
	const record = await recordOf(ctx, response, 'DELETE', labels(key, opts));
	if (notAppointmentReason(record, key) === undefined) return record!;
	return (await readAppointment(ctx, key, opts)) ?? gone;
}
