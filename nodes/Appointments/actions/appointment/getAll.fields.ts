/** Appointment > Get Many: its fields (filters, date range, Simplify, options with Page Concurrency). */
import { updateDisplayOptions, type INodeProperties, type INodePropertyOptions } from 'n8n-workflow';

import { STATUSES } from '../../shared';
import { optionsCollection, returnAllOrLimit } from '../common.descriptions';

export const SIMPLIFY_DESCRIPTION =
	'Whether to return only the key, code, status, start, calendar (key and name) and person (name and email) instead of the full record';

export const MAX_PAGE_CONCURRENCY = 10;

/** Date Range's choices, in the editor's order; errors name them as the editor shows them. */
export const DATE_RANGES = [
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
] as const satisfies readonly INodePropertyOptions[];

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
		options: [...DATE_RANGES],
	},
	{
		displayName: 'Start Date',
		name: 'startDate',
		type: 'dateTime',
		default: '',
		description: 'Earliest start to include; a date alone means from 00:00 of that day',
		displayOptions: { show: { dateRange: ['custom'] } },
	},
	{
		displayName: 'End Date',
		name: 'endDate',
		type: 'dateTime',
		default: '',
		description: 'Latest start to include; a date alone means until 23:59:59 of that day',
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
				description: "The person's email address",
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
				displayName: 'Is Canceled',
				name: 'isCancelled',
				type: 'boolean',
				default: false,
				description:
					'Whether to return only canceled appointments (on) or only not canceled ones (off)',
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
