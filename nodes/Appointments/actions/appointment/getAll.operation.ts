/**
 * Appointment > Get Many: GET /api/v3/appointments/ with any of the 17 filters, following pages until the limit.
 * The date range fills start_date/end_date as local wall clock (the service reads offset-less filters that way).
 */
import { updateDisplayOptions, type IDataObject, type INodeProperties } from 'n8n-workflow';

import {
	STATUSES,
	inputError,
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
import { optionsCollection, readLimit, returnAllOrLimit } from '../common.descriptions';
import type { PrepareOperation } from '../types';

export const SIMPLIFY_DESCRIPTION =
	'Whether to return only the key, code, status, start, calendar (key and name) and person (name and e-mail) instead of the full record';

const MAX_PAGE_CONCURRENCY = 10;

/** Get Many's options: the common ones and Page Concurrency (in alphabetical order, as n8n lists options). */
function withPageConcurrency(collection: INodeProperties): INodeProperties {
	const options = [...(collection.options as INodeProperties[])];
	const at = options.findIndex((o) => o.displayName > 'Page Concurrency');
	options.splice(at < 0 ? options.length : at, 0, {
		displayName: 'Page Concurrency',
		name: 'pageConcurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_PAGE_CONCURRENCY, numberPrecision: 0 },
		default: 4,
		description:
			"How many list pages to fetch at the same time when the service numbers its pages and gives a total; otherwise pages are read one after the other. Records keep the service's order. The pages of one list share Max Retry Wait, and a Retry-After on one pauses them all.",
	});
	return { ...collection, options };
}

const properties: INodeProperties[] = [
	...returnAllOrLimit('appointments'),
	{
		displayName: 'Date Range',
		name: 'dateRange',
		type: 'options',
		default: 'all',
		description: "Which start dates to include, in the chosen time zone (default: the workflow's)",
		options: [
			{ name: 'All Dates', value: 'all', description: 'No start date filter' },
			{
				name: 'Custom',
				value: 'custom',
				description: 'Pick the earliest and latest start',
			},
			{
				name: 'Next 7 Days',
				value: 'next7Days',
				description: 'Today and the six days after it',
			},
			{
				name: 'This Week',
				value: 'thisWeek',
				description: 'Monday to Sunday of the current week',
			},
			{ name: 'Today', value: 'today' },
			{ name: 'Tomorrow', value: 'tomorrow' },
			{ name: 'Yesterday', value: 'yesterday' },
		],
	},
	{
		displayName: 'Start Date',
		name: 'startDate',
		type: 'dateTime',
		default: '',
		description:
			'Earliest start to include. A date alone means 00:00:00 of that day; a value without offset is in the chosen time zone.',
		displayOptions: { show: { dateRange: ['custom'] } },
	},
	{
		displayName: 'End Date',
		name: 'endDate',
		type: 'dateTime',
		default: '',
		description:
			'Latest start to include. A date alone means 23:59:59 of that day; a value without offset is in the chosen time zone.',
		displayOptions: { show: { dateRange: ['custom'] } },
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Calendar Key',
				name: 'calendarKey',
				type: 'string',
				default: '',
				description: 'Only appointments of this calendar (UUID)',
			},
			{
				displayName: 'Client Key',
				name: 'clientKey',
				type: 'string',
				default: '',
				description: 'Only appointments of this client (UUID)',
			},
			{
				displayName: 'Created At',
				name: 'createdAt',
				type: 'dateTime',
				default: '',
				description: 'Creation date, sent as local wall clock in the chosen time zone',
			},
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				placeholder: 'name@email.com',
				default: '',
				description: "The person's e-mail address",
			},
			{
				displayName: 'External ID',
				name: 'externalId',
				type: 'string',
				default: '',
			},
			{
				displayName: 'Identification Code',
				name: 'identificationCode',
				type: 'string',
				default: '',
				description: 'National ID or document number of the person',
			},
			{
				displayName: 'Is Cancelled',
				name: 'isCancelled',
				type: 'boolean',
				default: false,
				description:
					'Whether to return only cancelled appointments (on) or only not cancelled ones (off)',
			},
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: "The person's name",
			},
			{
				displayName: 'Owner User',
				name: 'ownerUser',
				type: 'string',
				default: '',
				description: 'The responsible user',
			},
			{
				displayName: 'Person Key',
				name: 'personKey',
				type: 'string',
				default: '',
				description: 'Only appointments of this person (UUID)',
			},
			{
				displayName: 'Phone',
				name: 'phone',
				type: 'string',
				default: '',
				description: "The person's telephone",
			},
			{
				displayName: 'Search Code',
				name: 'searchCode',
				type: 'string',
				default: '',
				description: 'The human-readable appointment code',
			},
			{
				displayName: 'Service Keys',
				name: 'serviceKeys',
				type: 'string',
				default: '',
				placeholder: 'e.g. uuid-1, uuid-2',
				description: 'Service UUIDs, comma-separated (an expression may also return an array)',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: [...STATUSES],
				default: 'CONFIRMED',
			},
			{
				displayName: 'Tag Keys',
				name: 'tagKeys',
				type: 'string',
				default: '',
				placeholder: 'e.g. uuid-1, uuid-2',
				description: 'Tag UUIDs, comma-separated (an expression may also return an array)',
			},
		],
	},
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: SIMPLIFY_DESCRIPTION,
	},
	withPageConcurrency(optionsCollection(true)),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['appointment'], operation: ['getAll'] } },
	properties,
);

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
		if (!isEmpty(filters[field])) qs[param] = requireUuid(node, filters[field], label, i);
	}
	if (!isEmpty(filters.status)) qs.status = requireStatus(node, filters.status, 'Status', i);

	if (dateRange === 'custom') {
		const zone = item.zone();
		const start = this.getNodeParameter('startDate', i, '') as unknown;
		const end = this.getNodeParameter('endDate', i, '') as unknown;
		if (isEmpty(start) && isEmpty(end)) {
			throw inputError(node, 'Start Date', i, 'a date (or an End Date) when Date Range is Custom');
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
			throw inputError(
				node,
				'Date Range',
				i,
				'one of all, today, yesterday, tomorrow, thisWeek, next7Days, custom',
				dateRange,
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
		qs.is_cancelled = toBoolean(node, filters.isCancelled, 'Is Cancelled', i);
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
