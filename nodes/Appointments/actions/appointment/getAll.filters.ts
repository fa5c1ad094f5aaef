/**
 * Get Many's filters, one row each: the editor's field, the list query parameter it becomes and its kind. The
 * Filters collection, the Date Range's Start and End Date and the query are built from these rows, in this order
 * (an item's first bad field in it is the one named). A new kind needs its KIND_FIELDS, its READ
 * (getAll.operation.ts) and its rule in sandbox/listFilter.ts (test/node/getAllFilters.test.ts checks they agree).
 */
import type { INodeProperties } from 'n8n-workflow';

import { STATUSES } from '../../shared/constants.js';

/** What a filter holds; the sandbox's list filter table uses the same words for the same parameters. */
export type FilterKind = 'uuid' | 'uuidList' | 'status' | 'text' | 'email' | 'boolean' | 'datetime';

export interface FilterRow {
	/** The field's name as the editor shows it; errors name it so. */
	label: string;
	/** The parameter's name in the node (under Filters, or at the top for the Date Range's dates). */
	name: string;
	param: string;
	kind: FilterKind;
	description?: string;
	/** 'dateRange': a bound the Date Range fills (Custom shows it as a field of its own); else a Filters option. */
	in?: 'dateRange';
	/** The label version 3's editor shows (its Calendar is picked from a list). */
	labelV3?: string;
}

export const GET_MANY_FILTERS: readonly FilterRow[] = [
	{
		label: 'Calendar Key',
		labelV3: 'Calendar',
		name: 'calendarKey',
		param: 'calendar_key',
		kind: 'uuid',
		description: 'Only appointments of this calendar (UUID)',
	},
	{
		label: 'Client Key',
		name: 'clientKey',
		param: 'client_key',
		kind: 'uuid',
		description: 'Only appointments of this client (UUID)',
	},
	{
		label: 'Person Key',
		name: 'personKey',
		param: 'person_key',
		kind: 'uuid',
		description: 'Only appointments of this person (UUID)',
	},
	{ label: 'Status', name: 'status', param: 'status', kind: 'status' },
	{
		label: 'Start Date',
		name: 'startDate',
		param: 'start_date',
		kind: 'datetime',
		in: 'dateRange',
		description: 'Earliest start to include; a date alone means from 00:00 of that day',
	},
	{
		label: 'End Date',
		name: 'endDate',
		param: 'end_date',
		kind: 'datetime',
		in: 'dateRange',
		description: 'Latest start to include; a date alone means until 23:59:59 of that day',
	},
	{
		label: 'Email',
		name: 'email',
		param: 'email',
		kind: 'email',
		description: "The person's email address",
	},
	{
		label: 'Phone',
		name: 'phone',
		param: 'phone',
		kind: 'text',
		description: "The person's telephone",
	},
	{ label: 'Name', name: 'name', param: 'name', kind: 'text', description: "The person's name" },
	{
		label: 'Identification Code',
		name: 'identificationCode',
		param: 'identification_code',
		kind: 'text',
		description: 'National ID or document number of the person',
	},
	{ label: 'External ID', name: 'externalId', param: 'external_id', kind: 'text' },
	{
		label: 'Search Code',
		name: 'searchCode',
		param: 'search_code',
		kind: 'text',
		description: 'The human-readable appointment code',
	},
	{
		label: 'Owner User',
		name: 'ownerUser',
		param: 'owner_user',
		kind: 'text',
		description: 'The responsible user',
	},
	{
		label: 'Is Canceled',
		name: 'isCancelled',
		param: 'is_cancelled',
		kind: 'boolean',
		description:
			'Whether to return only canceled appointments (on) or only not canceled ones (off)',
	},
	{
		label: 'Service Keys',
		name: 'serviceKeys',
		param: 'service_keys',
		kind: 'uuidList',
		description: 'Service UUIDs, comma-separated (an expression may also return an array)',
	},
	{
		label: 'Tag Keys',
		name: 'tagKeys',
		param: 'tag_keys',
		kind: 'uuidList',
		description: 'Tag UUIDs, comma-separated (an expression may also return an array)',
	},
	{
		label: 'Created At',
		name: 'createdAt',
		param: 'created_at',
		kind: 'datetime',
		description: "Day of creation on the account's calendar (a typed date is that date there)",
	},
];

const KIND_FIELDS: Record<FilterKind, Omit<INodeProperties, 'displayName' | 'name'>> = {
	uuid: { type: 'string', default: '' },
	uuidList: { type: 'string', default: '', placeholder: 'e.g. uuid-1, uuid-2' },
	status: { type: 'options', options: [...STATUSES], default: 'CONFIRMED' },
	text: { type: 'string', default: '' },
	email: { type: 'string', placeholder: 'name@email.com', default: '' },
	boolean: { type: 'boolean', default: false },
	datetime: { type: 'dateTime', default: '' },
};

function field(row: FilterRow): INodeProperties {
	const description = row.description === undefined ? {} : { description: row.description };
	return { displayName: row.label, name: row.name, ...KIND_FIELDS[row.kind], ...description };
}

export const filtersCollection: INodeProperties = {
	displayName: 'Filters',
	name: 'filters',
	type: 'collection',
	placeholder: 'Add Filter',
	default: {},
	options: GET_MANY_FILTERS.filter((row) => row.in === undefined)
		.map(field)
		.sort((a, b) => (a.displayName < b.displayName ? -1 : 1)),
};

export function customRangeFields(): INodeProperties[] {
	return GET_MANY_FILTERS.filter((row) => row.in === 'dateRange').map((row) => ({
		...field(row),
		displayOptions: { show: { dateRange: ['custom'] } },
	}));
}
