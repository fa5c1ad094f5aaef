/**
 * simplifyAppointment(record): the fields a user needs, in the record's own shape and names, so `$json.person.full_name`
 * works with Simplify on or off; calendar_key kept to feed a Calendar filter.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

export function isObject(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function simplifyAppointment(record: unknown): IDataObject {
	const out = pickSimple(record);
	// A person is kept even without these fields, a calendar only with one of them (as the items always were).
	if (isObject(record) && isObject(record.person) && out.person === undefined) out.person = {};
	return out;
}

/** An event as a trigger delivers it: the webhook's envelope (with any fields the service adds) or a poll's. */
export type DeliveredEvent = IDataObject & { event: string; timestamp: string; data: IDataObject };

/**
 * A trigger item, one shape for both triggers: the event as delivered, or with Simplify the appointment's
 * simplified fields beside the event's name and time (and `previous`, the polling trigger's values before a change).
 */
export function triggerItem(
	delivered: DeliveredEvent,
	simplify: boolean,
	previous?: IDataObject,
): INodeExecutionData {
	if (!simplify) return { json: delivered };
	const { event, timestamp, data } = delivered;
	return {
		json: {
			...simplifyAppointment(data),
			event,
			timestamp,
			...(previous === undefined ? {} : { previous }),
		},
	};
}

/** Names that would reach an object's prototype instead of a field. */
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * fieldPicker(paths)(record): only the fields named by dot paths (`status`, `person.email`), nested as in the
 * record so the same expressions work (`$json.person.email`); a path the record does not have is left out. The
 * paths are split once, not again for every record of a list.
 */
export function fieldPicker(paths: readonly string[]): (record: unknown) => IDataObject {
	const split = paths
		.map((path) => path.split('.'))
		.filter((parts) => !parts.some((part) => UNSAFE.has(part)));
	return (record) => {
		const out: IDataObject = {};
		for (const parts of split) {
			let from: unknown = record;
			for (const part of parts)
				from =
					isObject(from) && Object.prototype.hasOwnProperty.call(from, part)
						? from[part]
						: undefined;
			if (from === undefined) continue;
			let to = out;
			for (let k = 0; k < parts.length - 1; k++) {
				if (!isObject(to[parts[k]])) to[parts[k]] = {};
				to = to[parts[k]] as IDataObject;
			}
			to[parts[parts.length - 1]] = from;
		}
		return out;
	};
}

const pickSimple = fieldPicker([
	'appointment_key',
	'search_code',
	'status',
	'start_date',
	'calendar.calendar_key',
	'calendar.name',
	'person.full_name',
	'person.email',
]);
