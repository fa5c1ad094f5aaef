/**
 * Appointment > Get Many: GET /api/v3/appointments/ with any of the 17 filters (the rows of getAll.filters.ts),
 * following pages until the limit. Dates go out as local wall clock (the service reads offset-less filters that way).
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import {
	inputError,
	withFix,
	locatorValue,
	numberValue,
	presetRange,
	requireEmail,
	requireStatus,
	requireUuid,
	toBoolean,
	uuidList,
	wallClockValue,
	type DateRangePreset,
} from '../../shared';
import { paginateAll } from '../../transport';
import { readLimit } from '../common.descriptions';
import type { ItemContext, PrepareOperation } from '../types';
import { DATE_RANGES, MAX_PAGE_CONCURRENCY } from './getAll.fields';
import { GET_MANY_FILTERS, type FilterKind } from './getAll.filters';
import { readShape } from './output';

/** The Date Range's two rows (Custom's Start Date and End Date). */
const [START, END] = GET_MANY_FILTERS.filter((row) => row.in === 'dateRange');

export { description, SIMPLIFY_DESCRIPTION } from './getAll.fields';

const DATE_RANGE_NAMES = DATE_RANGES.map((range) => range.name).join(', ');
const DATE_RANGE_VALUES = DATE_RANGES.map((range) => `${range.value} (${range.name})`).join(', ');

function isEmpty(value: unknown): boolean {
	return (
		value === undefined ||
		value === null ||
		(typeof value === 'string' && value.trim() === '') ||
		(Array.isArray(value) && value.length === 0)
	);
}

/** How each kind of filter is read from the editor and written into the query. */
type Reader = (node: INode, value: unknown, label: string, i: number, zone: () => string) => string | string[] | boolean;
const READ: Record<FilterKind, Reader> = {
	uuid: (node, value, label, i) => requireUuid(node, value, label, i),
	uuidList: (node, value, label, i) => uuidList(node, value, label, i),
	status: (node, value, label, i) => requireStatus(node, value, label, i),
	email: (node, value, label, i) => requireEmail(node, value, label, i),
	text: (node, value, label, i) => {
		if (typeof value !== 'string' && typeof value !== 'number') throw inputError(node, label, i, 'a text', value);
		return String(value).trim();
	},
	boolean: (node, value, label, i) => toBoolean(node, value, label, i),
	datetime: (node, value, label, i, zone) => wallClockValue(node, value, label, i, zone()),
};

/** Whether a filter is left out: a switch only when it holds nothing at all, other fields also when blank. */
const isUnset = (kind: FilterKind, value: unknown) =>
	kind === 'boolean' ? value === undefined || value === '' : isEmpty(value);

/** start_date and end_date of the Date Range, as local wall clock in the item's zone. */
function dateRangeQuery(ctx: IExecuteFunctions, item: ItemContext, dateRange: DateRangePreset): IDataObject {
	const i = item.itemIndex;
	const node = ctx.getNode();
	if (dateRange === 'all') return {};
	const zone = item.zone();
	if (dateRange !== 'custom') {
		let range: { start: string; end: string } | undefined;
		try {
			range = presetRange(dateRange, zone);
		} catch {
			throw withFix(
				inputError(node, 'Date Range', i, `one of ${DATE_RANGE_NAMES}`, dateRange),
				`Pick "Date Range" from the list; an expression must give one of their values: ${DATE_RANGE_VALUES}.`,
			);
		}
		return range ? { [START.param]: range.start, [END.param]: range.end } : {};
	}
	const start = ctx.getNodeParameter(START.name, i, '') as unknown;
	const end = ctx.getNodeParameter(END.name, i, '') as unknown;
	if (isEmpty(start) && isEmpty(end)) {
		throw withFix(
			inputError(node, START.label, i, 'a date (or an End Date) when Date Range is Custom'),
			'Pick a Start Date or an End Date, or choose another Date Range such as Today.',
		);
	}
	const from = isEmpty(start) ? undefined : wallClockValue(node, start, START.label, i, zone, 'start');
	const to = isEmpty(end) ? undefined : wallClockValue(node, end, END.label, i, zone, 'end');
	if (from !== undefined && to !== undefined && from > to) {
		throw inputError(node, END.label, i, `on or after the ${START.label} ${from}`, to);
	}
	const qs: IDataObject = {};
	if (from !== undefined) qs[START.param] = from;
	if (to !== undefined) qs[END.param] = to;
	return qs;
}

/**
 * The list query of one item, row by row in the table's order (so its first bad field is the one named); the
 * Date Range is read when its first row comes.
 */
function filterQuery(node: INode, item: ItemContext, filters: IDataObject, readRange: () => IDataObject): IDataObject {
	const i = item.itemIndex;
	const qs: IDataObject = {};
	let range: IDataObject | undefined;
	for (const row of GET_MANY_FILTERS) {
		if (row.in === 'dateRange') {
			range ??= readRange();
			if (range[row.param] !== undefined) qs[row.param] = range[row.param];
			continue;
		}
		// Calendar is a locator from version 3 on: its value is the key.
		const value = row.kind === 'uuid' ? locatorValue(filters[row.name]) : filters[row.name];
		if (isUnset(row.kind, value)) continue;
		const label = node.typeVersion >= 3 && row.labelV3 !== undefined ? row.labelV3 : row.label;
		qs[row.param] = READ[row.kind](node, value, label, i, item.zone);
	}
	return qs;
}

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const node = this.getNode();
	const limit = readLimit(this, i);
	const dateRange = this.getNodeParameter('dateRange', i, 'all') as DateRangePreset;
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	const pageConcurrency =
		numberValue(node, item.options.pageConcurrency, 'Page Concurrency', i, { min: 1, max: MAX_PAGE_CONCURRENCY, whole: true }) ?? 4;
	const qs = filterQuery(node, item, filters, () => dateRangeQuery(this, item, dateRange));
	const shape = readShape(this, i, true);

	return async () => {
		const records = await paginateAll<IDataObject>(this, 'appointments/', qs, {
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
