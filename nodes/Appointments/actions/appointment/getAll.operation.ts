/**
 * Appointment > Get Many: GET /api/v3/appointments/ with any of the 17 filters (the rows of getAll.filters.ts),
 * following pages until the limit. The Date Range is read in the item's zone (Options > Time Zone, else the
 * workflow's) as instants, asked for on the account's clock (padded when its zone is unknown: dateWindow.ts) and cut
 * here on each record's start. Created At is a day of the account's calendar: a date typed is that date there.
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import {
	choiceError,
	dateField,
	inputError,
	isBlank,
	numberValue,
	requireEmail,
	requireStatus,
	requireUuid,
	toBoolean,
	uuidList,
	withFix,
} from '../../shared/validation.js';
import {
	edgeWallClock,
	inWindow,
	startWindowQuery,
	wallClock,
	type StartWindow,
} from '../../shared/dateWindow.js';
import { locatorValue } from '../../shared/calendar.js';
import { presetRange, toInstant, type DateRangePreset } from '../../shared/dateInput.js';
import { accountTimeZone } from '../../transport/http/credentialInfo.js';
import { paginateAll } from '../../transport/list/paginate.js';
import { readLimit } from '../common.descriptions.js';
import type { ItemContext, PrepareOperation } from '../types.js';
import { DATE_RANGES, PAGE_CONCURRENCY } from './getAll.fields.js';
import { GET_MANY_FILTERS, type FilterKind, type FilterRow } from './getAll.filters.js';
import { readShape } from './output.js';

const [START, END] = GET_MANY_FILTERS.filter((row) => row.in === 'dateRange');

export { properties } from './getAll.fields.js';

/** A query value; a function is a date, written once the account's zone is known (undefined: the credential has none). */
type QueryValue = string | string[] | boolean | ((account?: string) => string | undefined);

const READ: Record<
	FilterKind,
	(node: INode, value: unknown, label: string, i: number, zone: () => string) => QueryValue
> = {
	uuid: requireUuid,
	uuidList,
	status: requireStatus,
	email: requireEmail,
	boolean: toBoolean,
	// Checked before any request; a date or time without offset is then read on the account's calendar.
	datetime: (node, value, label, i, zone) => {
		const instant = (z: string) => dateField(node, label, i, () => toInstant(value, z));
		instant(zone());
		return (account = zone()) => edgeWallClock(instant(account), account, 'lower');
	},
	text: (node, value, label, i) => {
		if (typeof value !== 'string' && typeof value !== 'number')
			throw inputError(node, label, i, 'a text', value);
		return String(value).trim();
	},
};

/** Whether a filter is left out: a switch only when it holds nothing at all, other fields also when blank. */
const isUnset = (kind: FilterKind, value: unknown) =>
	kind === 'boolean'
		? value === undefined || value === ''
		: isBlank(value) || (Array.isArray(value) && value.length === 0);

/** The Date Range's instants, read in the item's zone; undefined for All Dates (Find Free Times reads it too). */
export function dateRangeWindow(
	ctx: IExecuteFunctions,
	item: ItemContext,
	dateRange: DateRangePreset,
): StartWindow | undefined {
	const i = item.itemIndex;
	const node = ctx.getNode();
	if (dateRange === 'all') return undefined;
	const zone = item.zone();
	if (!DATE_RANGES.some((range) => range.value === dateRange))
		throw choiceError(node, 'Date Range', i, DATE_RANGES, dateRange, 'one of their values');
	if (dateRange !== 'custom') return presetRange(dateRange, zone);
	const at = (row: FilterRow, bound: 'start' | 'end') => {
		const value = ctx.getNodeParameter(row.name, i, '') as unknown;
		if (isUnset(row.kind, value)) return undefined;
		return dateField(node, row.label, i, () => toInstant(value, zone, bound));
	};
	const [from, to] = [at(START, 'start'), at(END, 'end')];
	if (from === undefined && to === undefined) {
		const fix = 'Pick a Start Date or an End Date, or choose another Date Range such as Today.';
		const expected = 'a date (or an End Date) when Date Range is Custom';
		throw withFix(inputError(node, START.label, i, expected), fix);
	}
	if (from !== undefined && to !== undefined && from > to) {
		const after = `on or after the ${START.label} ${wallClock(from, zone)}`;
		throw inputError(node, END.label, i, after, wallClock(to, zone));
	}
	return { from, to };
}

/**
 * The list query of one item, row by row in the table's order (so its first bad field is the one named, and the
 * query keeps that order); the Date Range is read when its first row comes. Dates are written when sent.
 */
function filterQuery(
	node: INode,
	item: ItemContext,
	filters: IDataObject,
	range: () => StartWindow | undefined,
): Array<[string, QueryValue]> {
	const query: Array<[string, QueryValue]> = [];
	for (const row of GET_MANY_FILTERS) {
		if (row.in === 'dateRange') {
			const [window, param] = [range(), row.param as 'start_date' | 'end_date'];
			if (window?.[row === START ? 'from' : 'to'] !== undefined)
				query.push([param, (account) => startWindowQuery(window, account, item.zone())[param]]);
			continue;
		}
		// Calendar is a locator from version 3 on: its value is the key.
		const value = row.kind === 'uuid' ? locatorValue(filters[row.name]) : filters[row.name];
		if (isUnset(row.kind, value)) continue;
		const label = node.typeVersion >= 3 && row.labelV3 !== undefined ? row.labelV3 : row.label;
		query.push([row.param, READ[row.kind](node, value, label, item.itemIndex, item.zone)]);
	}
	return query;
}

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const node = this.getNode();
	const limit = readLimit(this, i);
	const dateRange = this.getNodeParameter('dateRange', i, 'all') as DateRangePreset;
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	const pageConcurrency =
		numberValue(node, item.options.pageConcurrency, PAGE_CONCURRENCY.label, i, PAGE_CONCURRENCY) ??
		PAGE_CONCURRENCY.fallback;
	let range: { window: StartWindow | undefined } | undefined;
	const window = () => (range ??= { window: dateRangeWindow(this, item, dateRange) }).window;
	const query = filterQuery(node, item, filters, window);
	const shape = readShape(this, i, true);

	return async () => {
		// Read only when a date goes out (a Get Many without one works whatever the field holds).
		const dated = query.some(([, value]) => typeof value === 'function');
		const account = dated ? await accountTimeZone(this) : undefined;
		const qs: IDataObject = {};
		for (const [param, value] of query)
			qs[param] = typeof value === 'function' ? value(account) : value;
		const cut = window();
		const records = await paginateAll<IDataObject>(this, 'appointments/', qs, {
			keep: cut && ((record) => inWindow(cut, record.start_date, account ?? item.zone())),
			limit,
			itemIndex: i,
			policy: item.policy,
			keyField: 'appointment_key',
			resource: 'appointments',
			pageConcurrency,
		});
		return shape ? records.map((record) => shape(record)) : records;
	};
};
