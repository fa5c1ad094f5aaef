/**
 * The polling trigger's change events, told apart from the start, status and is_cancelled the state keeps: created;
 * canceled (became cancelled by the shared rule, whatever else changed, or the service forgot it); else rescheduled
 * (start changed), status_changed and updated (any changed), each at most once per change and with `previous`.
 */
import { DateTime } from 'luxon';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { CANCELED, CREATED, RESCHEDULED, STATUS_CHANGED, UPDATED } from '../shared/constants.js';
import { isCancelled } from '../shared/appointmentRecord.js';
import { triggerItem } from '../shared/simplify.js';
import { wasCancelled, type Entry } from './pollState.js';

/** The events whose items carry `previous`. */
export const WITH_PREVIOUS: ReadonlySet<string> = new Set([UPDATED, RESCHEDULED, STATUS_CHANGED]);

/** An event found by a poll; `previous`: the start and status before the change (rescheduled, status_changed, updated). */
export type Change = { event: string; data: IDataObject; previous?: IDataObject };

export function toItem(change: Change, timestamp: string, simplify: boolean): INodeExecutionData {
	const { event, data, previous } = change;
	return triggerItem(
		{ event, timestamp, data, ...(previous === undefined ? {} : { previous }) },
		simplify,
		previous,
	);
}

/** The events of a watched appointment whose fingerprint changed from `before` to `after` (now `record`); `previous`:
 * the start before, as ISO 8601 with the offset of `zone` at that instant, and the status before. */
export function changesOf(
	before: Entry,
	after: Entry,
	record: IDataObject,
	zone: string,
): Change[] {
	if (isCancelled(record) && !wasCancelled(before)) return [{ event: CANCELED, data: record }];
	const start = Number.isNaN(before.start)
		? null
		: DateTime.fromMillis(before.start, { zone }).toISO({ suppressMilliseconds: true });
	const previous = { start_date: start, status: before.status };
	const changes: Change[] = [];
	if (before.start !== after.start) changes.push({ event: RESCHEDULED, data: record, previous });
	if (before.status !== after.status)
		changes.push({ event: STATUS_CHANGED, data: record, previous });
	changes.push({ event: UPDATED, data: record, previous });
	return changes;
}

/** A new appointment in the window; one already cancelled is also reported canceled (created first). */
export function createdChanges(record: IDataObject): Change[] {
	const created: Change = { event: CREATED, data: record };
	return isCancelled(record) ? [created, { event: CANCELED, data: record }] : [created];
}

/** A watched appointment the service answers 404 for: canceled, as the Cancel operation reports one it removed. */
export const forgottenChange = (key: string): Change => ({
	event: CANCELED,
	data: { appointment_key: key, canceled: true },
});
