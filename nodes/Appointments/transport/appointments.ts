/**
 * Appointment requests.
 *
 *   getAppointment(ctx, key: string, opts?: { itemIndex?, policy? }): Promise<IDataObject>
 *   mutateAppointment(ctx, method: 'PATCH' | 'DELETE', path: string, key: string,
 *                     opts?: { qs?, body?, itemIndex?, policy?, readBack?: boolean (default true),
 *                              readBackMissing?: IDataObject }): Promise<IDataObject>
 *     A JSON object body with `appointment_key` is returned as is; an empty body / 204 is read back with GET
 *     (or `{ appointment_key: key }` when readBack is false). 404 -> "Appointment <key> not found".
 *     `readBackMissing`: returned when the read-back GET answers 404 (a service that removes what DELETE cancels).
 *   appointmentPath(key: string, suffix?: string): string      'appointments/<encoded key>/[suffix/]'
 */
import type { IDataObject } from 'n8n-workflow';

import type { RequestPolicy, TransportContext } from './credential';
import { apiRequest } from './request';

export function appointmentPath(key: string, suffix?: string): string {
	return `appointments/${encodeURIComponent(key)}/${suffix ? `${suffix.replace(/^\/+|\/+$/g, '')}/` : ''}`;
}

export async function getAppointment(
	ctx: TransportContext,
	key: string,
	opts: { itemIndex?: number; policy?: Partial<RequestPolicy> } = {},
): Promise<IDataObject> {
	const response = await apiRequest<IDataObject>(ctx, 'GET', appointmentPath(key), {
		itemIndex: opts.itemIndex,
		policy: opts.policy,
		resource: `Appointment ${key}`,
	});
	return (response.body ?? {}) as IDataObject;
}

export async function mutateAppointment(
	ctx: TransportContext,
	method: 'PATCH' | 'DELETE',
	path: string,
	key: string,
	opts: {
		qs?: IDataObject;
		body?: IDataObject;
		itemIndex?: number;
		policy?: Partial<RequestPolicy>;
		readBack?: boolean;
		readBackMissing?: IDataObject;
	} = {},
): Promise<IDataObject> {
	const response = await apiRequest<IDataObject>(ctx, method, path, {
		qs: opts.qs,
		body: opts.body,
		itemIndex: opts.itemIndex,
		policy: opts.policy,
		resource: `Appointment ${key}`,
	});
	const body = response.body;
	if (body && typeof body === 'object' && !Array.isArray(body) && body.appointment_key !== undefined) {
		return body;
	}
	if (opts.readBack === false) return { appointment_key: key };
	if (opts.readBackMissing) {
		const readBack = await apiRequest<IDataObject>(ctx, 'GET', appointmentPath(key), {
			itemIndex: opts.itemIndex,
			policy: opts.policy,
			resource: `Appointment ${key}`,
			allowStatus: [404],
		});
		if (readBack.statusCode === 404) return { ...opts.readBackMissing };
		return (readBack.body ?? { ...opts.readBackMissing }) as IDataObject;
	}
	return await getAppointment(ctx, key, { itemIndex: opts.itemIndex, policy: opts.policy });
}
