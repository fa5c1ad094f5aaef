/**
 * Appointment > Get Many: GET /api/v3/appointments/ with any of the 17 filters, following pages until the limit.
 * The date range fills start_date/end_date as local wall clock (the service reads offset-less filters that way).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	inputError,
	withFix,
	locatorValue,
	numberValue,
	presetRange,
	requireEmail,
	requireStatus,
	requireUuid,
	simplifyAppointment,
	toBoolean,
	uuidList,
	wallClockValue,
	type DateRangePreset,
} from '../../shared';
import { paginateAll } from '../../transport';
import { readLimit } from '../common.descriptions';
import type { PrepareOperation } from '../types';
import { DATE_RANGES, MAX_PAGE_CONCURRENCY } from './getAll.fields';

export { description, SIMPLIFY_DESCRIPTION } from './getAll.fields';

const TEXT_FILTERS: Array<[string, string, string]> = [
	['phone', 'phone', 'Phone'],
	['name', 'name', 'Name'],
	['identificationCode', 'identification_code', 'Identification Code'],
	['externalId', 'external_id', 'External ID'],
	['searchCode', 'search_code', 'Search Code'],
	['ownerUser', 'owner_user', 'Owner User'],
];

const KEY_FILTERS: Array<[string, string, string]> = [
	['calendarKey', 'calendar_key', 'Calendar Key'],
	['clientKey', 'client_key', 'Client Key'],
	['personKey', 'person_key', 'Person Key'],
];

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

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const node = this.getNode();
	const limit = readLimit(this, i);
	const simplify = this.getNodeParameter('simplify', i, true) as boolean;
	const dateRange = this.getNodeParameter('dateRange', i, 'all') as DateRangePreset;
	const filters = this.getNodeParameter('filters', i, {}) as IDataObject;
	const pageConcurrency =
		numberValue(node, item.options.pageConcurrency, 'Page Concurrency', i, { min: 1, max: MAX_PAGE_CONCURRENCY, whole: true }) ?? 4;

	const qs: IDataObject = {};
	for (const [field, param, label] of KEY_FILTERS) {
		// Calendar is a locator from version 3 on: its value is the key.
		const value = locatorValue(filters[field]);
		if (!isEmpty(value)) qs[param] = requireUuid(node, value, node.typeVersion >= 3 && field === 'calendarKey' ? 'Calendar' : label, i);
	}
	if (!isEmpty(filters.status)) qs.status = requireStatus(node, filters.status, 'Status', i);

	if (dateRange === 'custom') {
		const zone = item.zone();
		const start = this.getNodeParameter('startDate', i, '') as unknown;
		const end = this.getNodeParameter('endDate', i, '') as unknown;
		if (isEmpty(start) && isEmpty(end)) {
			throw withFix(
				inputError(node, 'Start Date', i, 'a date (or an End Date) when Date Range is Custom'),
				'Pick a Start Date or an End Date, or choose another Date Range such as Today.',
			);
		}
		if (!isEmpty(start))
			qs.start_date = wallClockValue(node, start, 'Start Date', i, zone, 'start');
		if (!isEmpty(end)) qs.end_date = wallClockValue(node, end, 'End Date', i, zone, 'end');
		if (qs.start_date && qs.end_date && String(qs.start_date) > String(qs.end_date)) {
			throw inputError(
				node,
				'End Date',
				i,
				`on or after the Start Date ${String(qs.start_date)}`,
				qs.end_date,
			);
		}
	} else if (dateRange !== 'all') {
		const zone = item.zone();
		let range: { start: string; end: string } | undefined;
		try {
			range = presetRange(dateRange, zone);
		} catch {
			throw withFix(
				inputError(node, 'Date Range', i, `one of ${DATE_RANGE_NAMES}`, dateRange),
				`Pick "Date Range" from the list; an expression must give one of their values: ${DATE_RANGE_VALUES}.`,
			);
		}
		if (range) {
			qs.start_date = range.start;
			qs.end_date = range.end;
		}
	}

	if (!isEmpty(filters.email)) qs.email = requireEmail(node, filters.email, 'Email', i);
	for (const [field, param, label] of TEXT_FILTERS) {
		const value = filters[field];
		if (isEmpty(value)) continue;
		if (typeof value !== 'string' && typeof value !== 'number') {
			throw inputError(node, label, i, 'a text', value);
		}
		qs[param] = String(value).trim();
	}
	if (filters.isCancelled !== undefined && filters.isCancelled !== '') {
		qs.is_cancelled = toBoolean(node, filters.isCancelled, 'Is Canceled', i);
	}
	if (!isEmpty(filters.serviceKeys)) {
		qs.service_keys = uuidList(node, filters.serviceKeys, 'Service Keys', i);
	}
	if (!isEmpty(filters.tagKeys)) qs.tag_keys = uuidList(node, filters.tagKeys, 'Tag Keys', i);
	if (!isEmpty(filters.createdAt)) {
		qs.created_at = wallClockValue(node, filters.createdAt, 'Created At', i, item.zone());
	}

	return async () => {
		const records = await paginateAll<IDataObject>(this, 'appointments/', qs, {
			limit,
			itemIndex: i,
			policy: item.policy,
			keyField: 'appointment_key',
			resource: 'appointments',
			pageConcurrency,
		});
		return simplify ? records.map((record) => simplifyAppointment(record)) : records;
	};
};
