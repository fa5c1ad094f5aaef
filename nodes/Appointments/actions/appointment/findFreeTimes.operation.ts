/**
 * Appointment > Find Free Times: the free start times of a calendar in a date range, one item each, from one read
 * of its appointments (Get Many's list reader, the range padded by how long appointments last and the buffer).
 * The Date Range is read as Get Many reads it, in Options › Time Zone when set, else in the account's zone.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { calendarLocator, locatorValue } from '../../shared/calendar.js';
import type { DateRangePreset } from '../../shared/dateInput.js';
import { inputError, numberValue, requireUuid } from '../../shared/validation.js';
import { accountTimeZone } from '../../transport/http/credentialInfo.js';
import { optionsCollection, readLimit, returnAllOrLimit } from '../common.descriptions.js';
import type { ItemContext, PrepareOperation } from '../types.js';
import {
	DAY_NAMES,
	freeStarts,
	MINUTE,
	readBusy,
	readOpeningHours,
	slotItem,
	startsOf,
	type Window,
} from './freeTimes.js';
import { DATE_RANGES } from './getAll.fields.js';
import { customRangeFields } from './getAll.filters.js';
import { dateRangeWindow } from './getAll.operation.js';

const minutes = (
	name: string,
	displayName: string,
	fallback: number,
	description: string,
): INodeProperties => ({
	displayName,
	name,
	type: 'number',
	typeOptions: { minValue: fallback === 0 ? 0 : 1, numberPrecision: 0 },
	default: fallback,
	description,
});

const dayOptions = DAY_NAMES.map((value) => ({
	name:
		value === 'everyDay'
			? 'Every Day'
			: value === 'weekdays'
				? 'Monday to Friday'
				: value[0].toUpperCase() + value.slice(1),
	value,
}));
const time = (displayName: string, name: string, fallback: string): INodeProperties => ({
	displayName,
	name,
	type: 'string',
	default: fallback,
	placeholder: fallback,
	description: "Wall-clock time in the account's time zone, HH:mm (To may be 24:00)",
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
	minutes('duration', 'Duration (Minutes)', 30, 'How long the appointment to place lasts'),
	{
		displayName: 'Opening Hours',
		name: 'openingHours',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Opening Hours',
		default: { ranges: [{ day: 'weekdays', from: '09:00', to: '17:00' }] },
		description:
			"When appointments can take place, in the account's time zone; add several ranges for one day (e.g. a lunch break)",
		options: [
			{
				displayName: 'Range',
				name: 'ranges',
				values: [
					{
						displayName: 'Day',
						name: 'day',
						type: 'options',
						options: dayOptions,
						default: 'weekdays',
					},
					time('From', 'from', '09:00'),
					time('To', 'to', '17:00'),
				],
			},
		],
	},
	minutes(
		'startEvery',
		'Start Times Every (Minutes)',
		15,
		'The grid of start times, counted from the start of each opening range',
	),
	minutes(
		'buffer',
		'Buffer (Minutes)',
		0,
		'Free time kept before and after every existing appointment',
	),
	minutes(
		'existingDuration',
		'Existing Appointments Last (Minutes)',
		0,
		"How long each existing appointment lasts. The service's records carry a start and no end, so this is how their end is known; 0 means the same as Duration.",
	),
	...returnAllOrLimit('free times'),
	optionsCollection(true),
];

const number = (ctx: IExecuteFunctions, i: number, name: string, label: string, min: number) =>
	numberValue(ctx.getNode(), ctx.getNodeParameter(name, i), label, i, {
		min,
		max: 1440,
		whole: true,
	}) ?? min;

/** The Date Range read in `zone`; both ends are needed (Custom with one alone is refused). */
function rangeIn(ctx: IExecuteFunctions, item: ItemContext, zone: string): Window {
	const preset = ctx.getNodeParameter('dateRange', item.itemIndex, 'next7Days') as DateRangePreset;
	const window = dateRangeWindow(ctx, { ...item, zone: () => zone }, preset);
	if (window?.from === undefined || window.to === undefined) {
		const label = window?.from === undefined ? 'Start Date' : 'End Date';
		throw inputError(
			ctx.getNode(),
			label,
			item.itemIndex,
			'a date: Find Free Times needs both ends of a Custom range',
		);
	}
	return { from: window.from, to: window.to };
}

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const calendar = requireUuid(
		this.getNode(),
		locatorValue(this.getNodeParameter('calendar', i)),
		'Calendar',
		i,
	);
	rangeIn(this, item, item.zone());
	const duration = number(this, i, 'duration', 'Duration (Minutes)', 1);
	const rules = {
		duration,
		grid: number(this, i, 'startEvery', 'Start Times Every (Minutes)', 1),
		buffer: number(this, i, 'buffer', 'Buffer (Minutes)', 0),
		existing:
			number(this, i, 'existingDuration', 'Existing Appointments Last (Minutes)', 0) || duration,
	};
	const hours = readOpeningHours(this, i);
	const limit = readLimit(this, i);
	return async () => {
		const account = await accountTimeZone(this);
		const zone = account ?? item.zone();
		const window = rangeIn(this, item, item.options.timeZone ? item.zone() : zone);
		const padded = {
			from: window.from - (rules.existing + rules.buffer) * MINUTE,
			to: window.to + (rules.duration + rules.buffer) * MINUTE,
		};
		const records = await readBusy(this, item, calendar, padded, zone);
		const name = records.find((r) => r.calendar)?.calendar as { name?: unknown } | undefined;
		const note = account
			? {}
			: {
					timeZoneNote: `The credential's Account Time Zone is empty: times are in ${zone}, ${item.options.timeZone ? "the node's Time Zone option" : "the workflow's time zone"}`,
				};
		return freeStarts(window, zone, hours, rules, startsOf(records, zone), limit).map((start) => ({
			...slotItem(start, duration, zone),
			calendar: { calendar_key: calendar, ...(name?.name !== undefined && { name: name.name }) },
			timeZone: zone,
			...note,
		}));
	};
};
