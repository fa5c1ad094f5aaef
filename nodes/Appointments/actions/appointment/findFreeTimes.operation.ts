/**
 * Appointment > Find Free Times (its functions also serve Reschedule › Only If Free): one read of the calendar over
 * the Date Range (Get Many's), padded by how long appointments last and the buffer. Opening hours are wall clock in
 * the account's zone, stepped on a grid from each range's start; a start the clocks skip is none, one they repeat
 * counts once (its first occurrence). A start is free when no active appointment (lasting `existing`, Buffer on
 * both sides) overlaps it.
 */
import { DateTime } from 'luxon';
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { isCancelled, notAppointmentReason } from '../../shared/appointmentRecord.js';
import { calendarLocator, locatorValue } from '../../shared/calendar.js';
import type { DateRangePreset } from '../../shared/dateInput.js';
import {
	inWindow,
	startInstant,
	startWindowQuery,
	wallClockReadings,
} from '../../shared/dateWindow.js';
import { inputError, numberValue, requireUuid } from '../../shared/validation.js';
import { accountTimeZone } from '../../transport/http/credentialInfo.js';
import { paginateAll } from '../../transport/list/paginate.js';
import { optionsCollection, readLimit, returnAllOrLimit } from '../common.descriptions.js';
import { PAGE_CONCURRENCY } from './getAll.fields.js';
import type { ItemContext, PrepareOperation } from '../types.js';
import { DATE_RANGES } from './getAll.fields.js';
import { customRangeFields } from './getAll.filters.js';
import { dateRangeWindow } from './getAll.operation.js';

export const MINUTE = 60_000;
/** Luxon weekdays (1 Monday … 7 Sunday) to their ranges, in minutes from midnight (`to` up to 24:00). */
type OpeningHours = Map<number, Array<{ from: number; to: number }>>;
/** In minutes: the one to place, the gap kept, the grid, how long existing ones last. */
type SlotRules = { duration: number; buffer: number; grid: number; existing: number };
type Window = { from: number; to: number };
type BusyKeys = { calendar?: string; account?: string; except?: string };
type BusyRead = BusyKeys & { window: Window; zone: string };

const WEEK = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const DAYS: Array<[string, string, number[]]> = [
	['Every Day', 'everyDay', [1, 2, 3, 4, 5, 6, 7]],
	['Monday to Friday', 'weekdays', [1, 2, 3, 4, 5]],
	['Weekend', 'weekend', [6, 7]],
	...WEEK.map((name, i): [string, string, number[]] => [name, name.toLowerCase(), [i + 1]]),
];
const DAY_OPTIONS = DAYS.map(([name, value]) => ({ name, value }));

/** [name, label, default, description] of the minute fields, in the editor's order. */
const MINUTES: Array<[string, string, number, string]> = [
	['duration', 'Duration (Minutes)', 30, 'How long the appointment to place lasts'],
	['startEvery', 'Start Times Every (Minutes)', 15, 'From the start of each opening range'],
	['buffer', 'Buffer (Minutes)', 0, 'Free time kept before and after every existing appointment'],
	[
		'existingDuration',
		'Existing Appointments Last (Minutes)',
		0,
		"How long each existing appointment lasts: the service's records carry a start and no end. 0: the same as Duration.",
	],
];
const [duration, ...slotFields] = MINUTES.map(
	([name, displayName, value, description]): INodeProperties => ({
		displayName,
		name,
		type: 'number',
		default: value,
		description,
		typeOptions: { minValue: value === 0 ? 0 : 1, numberPrecision: 0 },
	}),
);
const time = (displayName: string, name: string, value: string): INodeProperties => ({
	displayName,
	name,
	type: 'string',
	default: value,
	placeholder: value,
	description: "Wall clock in the account's time zone, HH:mm (To may be 24:00)",
});

export const properties: INodeProperties[] = [
	{ ...calendarLocator('calendar', 'The calendar to find free times in'), required: true },
	{
		displayName: 'Date Range',
		name: 'dateRange',
		type: 'options',
		default: 'next7Days',
		description: "Which days to search, in the account's time zone (Options › Time Zone when set)",
		options: DATE_RANGES.filter((range) => range.value !== 'all'),
	},
	...customRangeFields(),
	duration,
	{
		displayName: 'Opening Hours',
		name: 'openingHours',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: { ranges: [{ day: 'weekdays', from: '09:00', to: '17:00' }] },
		description: "In the account's time zone; several ranges for one day leave out a lunch break",
		options: [
			{
				displayName: 'Range',
				name: 'ranges',
				values: [
					{
						displayName: 'Day',
						name: 'day',
						type: 'options',
						options: DAY_OPTIONS,
						default: 'weekdays',
					},
					time('From', 'from', '09:00'),
					time('To', 'to', '17:00'),
				],
			},
		],
	},
	...slotFields,
	...returnAllOrLimit('free times'),
	optionsCollection(true),
];

/**
 * Minute `m` of a date (its UTC midnight) in `zone`: as a start its first occurrence (NaN when skipped), as an end
 * its last. `steady`: the day's one offset when its clocks do not change (reading each time is 20 times slower).
 */
function wallInstant(date: number, m: number, zone: string, end: boolean, steady?: number) {
	if (steady !== undefined) return date + (m - steady) * MINUTE;
	const readings = wallClockReadings(date + m * MINUTE, zone);
	return end || readings.kind !== 'skipped' ? readings[end ? 'later' : 'earlier'] : NaN;
}

type FreeQuery = { window: Window; zone: string; hours: OpeningHours; rules: SlotRules };
type FreeSearch = FreeQuery & { busy: number[]; limit?: number };

/**
 * The free starts of the query's window not already past, day by day in its zone, at most `limit` (the grid stays
 * on each opening range's start); `busy`: the existing starts.
 */
export function freeStarts({ window, zone, hours, rules, busy, limit = Infinity }: FreeSearch) {
	const [before, after] = [rules.existing + rules.buffer, rules.buffer].map((m) => m * MINUTE);
	const isFree = (start: number, end: number) =>
		busy.every((b) => b + before <= start || b >= end + after);
	const dateOf = (ms: number) =>
		DateTime.fromMillis(ms, { zone }).setZone('UTC', { keepLocalTime: true }).startOf('day');
	const from = Math.max(window.from, Date.now());
	const out: number[] = [];
	for (let d = dateOf(from); d <= dateOf(window.to); d = d.plus({ days: 1 })) {
		const [date, day] = [d.toMillis(), new Set<number>()];
		// Offsets 14 hours before and 38 after the date's UTC midnight bracket its whole day in any zone.
		const [early, late] = [date - 840 * MINUTE, date + 2280 * MINUTE].map((t) =>
			d.setZone(zone).zone.offset(t),
		);
		const steady = early === late ? early : undefined;
		for (const range of hours.get(d.weekday) ?? []) {
			const close = wallInstant(date, range.to, zone, true, steady);
			for (let m = range.from; m < range.to; m += rules.grid) {
				const start = wallInstant(date, m, zone, false, steady);
				const end = start + rules.duration * MINUTE;
				const inside = start >= from && start <= window.to && end <= close;
				if (inside && isFree(start, end)) day.add(start);
			}
		}
		out.push(...[...day].sort((a, b) => a - b).slice(0, limit - out.length));
		if (out.length >= limit) break;
	}
	return out;
}

/** `{ start, end, when }`: ISO with the zone's offset and a line such as `Thu 26 Nov, 15:00–15:30`. */
export function slotItem(start: number, minutes: number, zone: string) {
	const [from, to] = [start, start + minutes * MINUTE].map((ms) =>
		DateTime.fromMillis(ms, { zone, locale: 'en-US' }),
	);
	const iso = (t: DateTime) => t.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
	return {
		start: iso(from),
		end: iso(to),
		when: `${from.toFormat('ccc d LLL, HH:mm')}–${to.toFormat('HH:mm')}`,
	};
}

/**
 * The active appointments of `calendar` starting in `window`, `except` left out, read with Get Many's list reader
 * (a request per page). A record that is no appointment fails the item: a free time must never hide a booking.
 */
export async function readBusy(ctx: IExecuteFunctions, item: ItemContext, q: BusyRead) {
	const keep = (record: IDataObject) => {
		const why = notAppointmentReason(record);
		if (why === undefined) return inWindow(q.window, record.start_date, q.zone);
		const message = `A record of the service's list is not an appointment (${why}): free times cannot be known`;
		throw new NodeOperationError(ctx.getNode(), message, { itemIndex: item.itemIndex });
	};
	const qs = {
		...(q.calendar && { calendar_key: q.calendar }),
		...startWindowQuery(q.window, q.account, q.zone),
	};
	const { itemIndex, policy } = item;
	const [keyField, resource] = ['appointment_key', 'appointments'];
	const pageConcurrency = PAGE_CONCURRENCY.fallback; // Get Many's default
	const read = { keep, itemIndex, policy, keyField, resource, pageConcurrency };
	const records = await paginateAll<IDataObject>(ctx, 'appointments/', qs, read);
	// A service that ignored calendar_key must not make another calendar's appointments conflicts.
	const low = (v: unknown) => String(v ?? '').toLowerCase();
	const mine = (r: IDataObject) =>
		[low(q.calendar), ''].includes(low((r.calendar as IDataObject)?.calendar_key));
	const ok = (r: IDataObject) => !isCancelled(r) && low(r.appointment_key) !== low(q.except);
	return records.filter((r) => ok(r) && (!q.calendar || mine(r)));
}

const DAY_VALUES = DAYS.map(([, value]) => value).join(', ');
const minutesOf = (text: unknown) => {
	const match = /^\s*(\d{1,2}):([0-5]\d)\s*$/.exec(String(text));
	const minutes = match ? Number(match[1]) * 60 + Number(match[2]) : NaN;
	return minutes <= 1440 ? minutes : undefined;
};

/** Opening Hours as the editor holds them ({ ranges: [{ day, from, to }] }), checked before anything is sent. */
function readOpeningHours(ctx: IExecuteFunctions, i: number): OpeningHours {
	const [node, hours]: [ReturnType<typeof ctx.getNode>, OpeningHours] = [ctx.getNode(), new Map()];
	const ranges = (ctx.getNodeParameter('openingHours', i, {}) as IDataObject)?.ranges;
	if (!Array.isArray(ranges) || ranges.length === 0)
		throw inputError(node, 'Opening Hours', i, 'at least one range');
	for (const { day, from: f, to: t } of ranges as IDataObject[]) {
		const [from, to, days] = [minutesOf(f), minutesOf(t), DAYS.find(([, v]) => v === day)?.[2]];
		if (from === undefined || from >= 1440)
			throw inputError(node, 'Opening Hours › From', i, 'a time such as 09:00', f);
		if (to === undefined || to <= from)
			throw inputError(node, 'Opening Hours › To', i, `a time after ${f}`, t);
		if (!days) throw inputError(node, 'Opening Hours › Day', i, `one of ${DAY_VALUES}`, day);
		for (const d of days) hours.set(d, [...(hours.get(d) ?? []), { from, to }]);
	}
	return hours;
}

/** The Date Range read in `zone`: both ends are needed (a Custom range with one alone is refused). */
function rangeIn(ctx: IExecuteFunctions, item: ItemContext, zone: string): Window {
	const preset = ctx.getNodeParameter('dateRange', item.itemIndex, '') as DateRangePreset;
	const { from, to } = dateRangeWindow(ctx, { ...item, zone: () => zone }, preset) ?? {};
	if (from !== undefined && to !== undefined) return { from, to };
	const end = from === undefined ? 'Start Date' : 'End Date';
	const [label, i] = [preset === 'custom' ? end : 'Date Range', item.itemIndex];
	throw inputError(ctx.getNode(), label, i, 'a date: Find Free Times needs both ends');
}

function readRules(ctx: IExecuteFunctions, i: number): SlotRules {
	const [duration, grid, buffer, existing] = MINUTES.map(([name, label, value]) => {
		const rule = { min: value === 0 ? 0 : 1, max: 1440, whole: true };
		const given = ctx.getNodeParameter(name, i, value);
		return numberValue(ctx.getNode(), given, label, i, rule) ?? value;
	});
	return { duration, grid, buffer, existing: existing || duration };
}

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const calendarKey = locatorValue(this.getNodeParameter('calendar', i));
	const calendar = requireUuid(this.getNode(), calendarKey, 'Calendar', i);
	rangeIn(this, item, item.zone());
	const [rules, hours, limit] = [readRules(this, i), readOpeningHours(this, i), readLimit(this, i)];
	return async () => {
		const account = await accountTimeZone(this);
		const zone = account ?? item.zone();
		const window = rangeIn(this, item, item.options.timeZone ? item.zone() : zone);
		const pad = (minutes: number) => (minutes + rules.buffer) * MINUTE;
		const read = { from: window.from - pad(rules.existing), to: window.to + pad(rules.duration) };
		const records = await readBusy(this, item, { calendar, window: read, zone, account });
		const { name } = (records.find((r) => r.calendar)?.calendar ?? {}) as { name?: string };
		const source = item.options.timeZone
			? "the node's Time Zone option"
			: "the workflow's time zone";
		const note = `The credential's Account Time Zone is empty: times are in ${zone}, ${source}`;
		const busy = records.map((r) => startInstant(r.start_date, zone));
		const starts = freeStarts({ window, zone, hours, rules, busy, limit });
		return starts.map((start) => ({
			...slotItem(start, rules.duration, zone),
			calendar: { calendar_key: calendar, ...(name !== undefined && { name }) },
			timeZone: zone,
			...(account === undefined && { timeZoneNote: note }),
		}));
	};
};
