/**
 * Appointment > Reschedule: PATCH /api/v3/appointments/{key}/reschedule/ {start_date} with ISO 8601 and the
 * offset of the chosen time zone; returns the updated appointment. With Only If Free, the calendar is read around
 * the new start first (Find Free Times' read) and nothing is sent when another appointment overlaps it; a service
 * that refuses the move as a taken slot (409, or 400 saying so) gives the same answer. After a move, one more read
 * tells what overlaps now: another booking can land between the check and the move.
 */
import { DateTime } from 'luxon';
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { toOffsetIso } from '../../shared/dateInput.js';
import { dateField, numberValue } from '../../shared/validation.js';
import { accountTimeZone } from '../../transport/http/credentialInfo.js';
import {
	appointmentPath,
	getAppointment,
	mutateAppointment,
} from '../../transport/resources/appointmentCalls.js';
import { appointmentKeyField, optionsCollection } from '../common.descriptions.js';
import { readAppointmentKey } from '../keys.js';
import type { ItemContext, PreparedRun, PrepareOperation } from '../types.js';
import { freeStarts, MINUTE, readBusy, slotItem } from './findFreeTimes.operation.js';
import { startInstant } from '../../shared/dateWindow.js';

const onlyIfFree = { show: { onlyIfFree: [true] } };

export const properties: INodeProperties[] = [
	appointmentKeyField,
	{
		displayName: 'New Start',
		name: 'startDate',
		type: 'dateTime',
		required: true,
		default: '',
		description:
			"The new start; a time without an offset is read in the chosen time zone (default: the workflow's)",
		hint: 'The service does not check that the new time is free: turn on Only If Free, or use Find Free Times first',
	},
	{
		displayName: 'Only If Free',
		name: 'onlyIfFree',
		type: 'boolean',
		default: false,
		description:
			'Whether to read the calendar around the new start first and move nothing when another appointment overlaps it',
	},
	{
		displayName: 'Appointments Last (Minutes)',
		name: 'duration',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 30,
		description:
			"How long this and the calendar's other appointments last: the service's records carry a start and no end",
		displayOptions: onlyIfFree,
	},
	{
		displayName: 'When Taken',
		name: 'whenTaken',
		type: 'options',
		default: 'output',
		options: [
			{
				name: 'Output It',
				value: 'output',
				description:
					'The item says rescheduled: false, the appointments in the way and the next free times of that day',
			},
			{ name: 'Fail', value: 'error', description: 'The node fails with the same information' },
		],
		displayOptions: onlyIfFree,
	},
	optionsCollection(true),
];

type Check = { duration: number; fail: boolean; key: string; start: number; calendar?: string };

/**
 * The new start's day: who is in the way, and its next free starts (15-minute grid) no later than the day's last
 * appointment ends, this one's current start and the asked slot included: the hours the calendar is in use that
 * day, as no opening hours are known here. None already past.
 */
async function around(ctx: IExecuteFunctions, item: ItemContext, check: Check, current?: unknown) {
	const account = await accountTimeZone(ctx);
	const zone = account ?? item.zone();
	const { start, duration, key: except, calendar } = check;
	const [local, span] = [DateTime.fromMillis(start, { zone }), duration * MINUTE];
	const to = Math.max(local.plus({ days: 1 }).startOf('day').toMillis(), start + span);
	const read = { from: start - span, to };
	const records = await readBusy(ctx, item, { calendar, window: read, zone, account, except });
	const busy = records.map((r) => startInstant(r.start_date, zone));
	const last = Math.max(start, ...[startInstant(current, zone), ...busy].filter((t) => t < to));
	const close = DateTime.fromMillis(last + span, { zone });
	const endMinute = close.hasSame(local, 'day') ? close.hour * 60 + close.minute : 1440;
	const from = Math.ceil((local.hour * 60 + local.minute + local.second / 60) / 15) * 15;
	const hours = new Map([[local.weekday, [{ from, to: endMinute }]]]);
	const rules = { duration, buffer: 0, grid: 15, existing: duration };
	const query = { window: { from: start + 1, to }, zone, hours, rules, busy, limit: 5 };
	const slot = (s: number) => slotItem(s, duration, zone);
	const conflicts = records
		.filter((r) => Math.abs(startInstant(r.start_date, zone) - start) < span)
		.map((r) => ({
			appointment_key: r.appointment_key,
			search_code: r.search_code,
			start_date: r.start_date,
			when: slot(startInstant(r.start_date, zone)).when,
			person: (r.person as IDataObject | undefined)?.full_name,
		}));
	const nextFreeTimes = freeStarts(query).map(slot);
	return { requested: slot(start), conflicts, nextFreeTimes };
}

const TAKEN = /slot|taken|available|overlap|conflict|busy|occupied|booked/i;

/** A refusal as a taken slot (a 409, or a 400 saying so) is an answer; any other failure stays the node's error. */
function refusal(error: unknown): string {
	if (!(error instanceof NodeApiError)) throw error;
	const said = TAKEN.test(`${error.message} ${error.description}`);
	if (error.httpCode === '409' || (error.httpCode === '400' && said)) return error.message;
	throw error;
}

async function movedIfFree(
	ctx: IExecuteFunctions,
	item: ItemContext,
	given: Check,
	move: PreparedRun,
) {
	const opts = { itemIndex: item.itemIndex, policy: item.policy };
	const { calendar: cal, start_date: current } = await getAppointment(ctx, given.key, opts);
	const calendar = (cal as IDataObject | undefined)?.calendar_key;
	const check = { ...given, calendar: typeof calendar === 'string' ? calendar : undefined };
	const look = async () => await around(ctx, item, check, current);
	let [seen, refused] = [await look(), undefined as string | undefined];
	if (seen.conflicts.length === 0) {
		const moved = await move().then((record) => ({ record: record as IDataObject }), refusal);
		if (typeof moved !== 'string') {
			// The move happened: a re-check that fails is said, never the item's error.
			const after = await look().then(
				({ conflicts }) => ({ conflictsAfterMove: conflicts }),
				(error: Error) => ({
					conflictsAfterMove: null,
					recheckFailed: `Moved; the re-check after the move could not be made: ${error.message}`,
				}),
			);
			return { ...moved.record, rescheduled: true, ...after };
		}
		[seen, refused] = [await look(), moved];
	}
	const taken = { appointment_key: check.key, rescheduled: false, reason: 'slot taken', ...seen };
	if (!check.fail) return { ...taken, ...(refused && { refusedByService: refused }) };
	const who = seen.conflicts.map((c) => `${c.search_code} (${c.when})`).join(', ');
	const message = `Not rescheduled: ${seen.requested.when} is taken by ${who || `the service's answer: ${refused}`}`;
	const description = `Next free times that day: ${seen.nextFreeTimes.map((s) => s.when).join('; ') || 'none'}`;
	throw new NodeOperationError(ctx.getNode(), message, { itemIndex: item.itemIndex, description });
}

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const key = readAppointmentKey(this, i);
	const startDate = dateField(this.getNode(), 'New Start', i, () =>
		toOffsetIso(this.getNodeParameter('startDate', i), item.zone()),
	);
	const opts = { body: { start_date: startDate }, itemIndex: i, policy: item.policy };
	const path = appointmentPath(key, 'reschedule');
	const move = async () => await mutateAppointment(this, 'PATCH', path, key, opts);
	if (this.getNodeParameter('onlyIfFree', i, false) !== true) return move;
	const rule = { min: 1, max: 1440, whole: true };
	const duration = this.getNodeParameter('duration', i, 30);
	const check: Check = {
		key,
		start: Date.parse(startDate),
		duration: numberValue(this.getNode(), duration, 'Appointments Last (Minutes)', i, rule) ?? 30,
		fail: this.getNodeParameter('whenTaken', i, 'output') === 'error',
	};
	return async () => await movedIfFree(this, item, check, move);
};
