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

import { numberValue, offsetIsoValue } from '../../shared/validation.js';
import { accountTimeZone } from '../../transport/http/credentialInfo.js';
import {
	appointmentPath,
	getAppointment,
	mutateAppointment,
} from '../../transport/resources/appointmentCalls.js';
import { appointmentKeyField, optionsCollection } from '../common.descriptions.js';
import { readAppointmentKey } from '../keys.js';
import type { ItemContext, PrepareOperation } from '../types.js';
import { freeStarts, MINUTE, readBusy, slotItem, startsOf, whenLine } from './freeTimes.js';

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

type Check = { duration: number; fail: boolean; key: string; start: number };

/** The calendar from the new start's slot to the end of its day: who is in the way, and the day's next free starts. */
async function around(ctx: IExecuteFunctions, item: ItemContext, check: Check, calendar: string) {
	const zone = (await accountTimeZone(ctx)) ?? item.zone();
	const { start, duration, key } = check;
	const length = duration * MINUTE;
	const local = DateTime.fromMillis(start, { zone });
	const to = Math.max(local.plus({ days: 1 }).startOf('day').toMillis(), start + length);
	const records = await readBusy(
		ctx,
		item,
		calendar || undefined,
		{ from: start - length, to },
		zone,
		key,
	);
	const from = Math.ceil((local.hour * 60 + local.minute + local.second / 60) / 15) * 15;
	const hours = new Map([[local.weekday, [{ from, to: 1440 }]]]);
	const rules = { duration, buffer: 0, grid: 15, existing: duration };
	const free = freeStarts({ from: start + 1, to }, zone, hours, rules, startsOf(records, zone), 5);
	const conflicts = records
		.filter((r) => Math.abs(Date.parse(String(r.start_date)) - start) < length)
		.map((r) => ({
			appointment_key: r.appointment_key,
			search_code: r.search_code,
			start_date: r.start_date,
			when: whenLine(Date.parse(String(r.start_date)), duration, zone),
			person: (r.person as IDataObject | undefined)?.full_name,
		}));
	return {
		conflicts,
		nextFreeTimes: free.map((s) => slotItem(s, duration, zone)),
		requested: slotItem(start, duration, zone),
	};
}

/** Whether the service refused the move as a taken slot: any 409, or a 400 whose message says so. */
const refusedAsTaken = (error: unknown) =>
	error instanceof NodeApiError &&
	(error.httpCode === '409' ||
		(error.httpCode === '400' &&
			/slot|taken|available|overlap|conflict|busy|occupied|booked/i.test(
				`${error.message} ${error.description}`,
			)));

async function movedIfFree(
	ctx: IExecuteFunctions,
	item: ItemContext,
	check: Check,
	move: () => Promise<IDataObject>,
) {
	const opts = { itemIndex: item.itemIndex, policy: item.policy };
	const current = await getAppointment(ctx, check.key, opts);
	const calendar = String((current.calendar as IDataObject | undefined)?.calendar_key ?? '');
	let seen = await around(ctx, item, check, calendar);
	let refusal: string | undefined;
	if (seen.conflicts.length === 0) {
		try {
			const record = await move();
			return {
				...record,
				rescheduled: true,
				conflictsAfterMove: (await around(ctx, item, check, calendar)).conflicts,
			};
		} catch (error) {
			if (!refusedAsTaken(error)) throw error;
			refusal = (error as Error).message;
			seen = await around(ctx, item, check, calendar);
		}
	}
	const taken = {
		appointment_key: check.key,
		rescheduled: false,
		reason: 'slot taken',
		...(refusal && { refusedByService: refusal }),
		...seen,
	};
	if (!check.fail) return taken;
	const who =
		seen.conflicts.map((c) => `${c.search_code} (${c.when})`).join(', ') ||
		'the service refused it';
	throw new NodeOperationError(
		ctx.getNode(),
		`Not rescheduled: ${seen.requested.when} is taken by ${who}`,
		{
			itemIndex: item.itemIndex,
			description: `Next free times that day: ${seen.nextFreeTimes.map((s) => s.when).join('; ') || 'none'}`,
		},
	);
}

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const key = readAppointmentKey(this, i);
	const startDate = offsetIsoValue(
		this.getNode(),
		this.getNodeParameter('startDate', i),
		'New Start',
		i,
		item.zone(),
	);
	const body = { start_date: startDate };
	const move = async () =>
		await mutateAppointment(this, 'PATCH', appointmentPath(key, 'reschedule'), key, {
			body,
			itemIndex: i,
			policy: item.policy,
		});
	if (this.getNodeParameter('onlyIfFree', i, false) !== true) return move;
	const duration = this.getNodeParameter('duration', i, 30);
	const check: Check = {
		key,
		start: Date.parse(startDate),
		duration:
			numberValue(this.getNode(), duration, 'Appointments Last (Minutes)', i, {
				min: 1,
				max: 1440,
				whole: true,
			}) ?? 30,
		fail: this.getNodeParameter('whenTaken', i, 'output') === 'error',
	};
	return async () => await movedIfFree(this, item, check, move);
};
