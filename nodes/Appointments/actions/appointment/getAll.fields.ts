/** Appointment > Get Many: its fields (date range, filters from getAll.filters.ts, Simplify, options with Page Concurrency). */
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { numberOption, optionsCollection, returnAllOrLimit } from '../common.descriptions.js';
import { customRangeFields, filtersCollection } from './getAll.filters.js';

/** Get Many's switch, and Get's from version 2 on (so a simplified item feeds the next node's filters alike). */
export const simplifyProperty: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description:
		'Whether to return only the key, code, status, start, calendar (key and name) and person (name and email) instead of the full record',
};

export const PAGE_CONCURRENCY = {
	label: 'Page Concurrency',
	fallback: 4,
	min: 1,
	max: 10,
	whole: true,
};

/** Date Range's choices, in the editor's order; errors name them as the editor shows them. */
export const DATE_RANGES = [
	{ name: 'All Dates', value: 'all', description: 'No start date filter' },
	{ name: 'Custom', value: 'custom', description: 'Pick the earliest and latest start' },
	{ name: 'Next 7 Days', value: 'next7Days', description: 'Today and the six days after it' },
	{ name: 'This Week', value: 'thisWeek', description: 'Monday to Sunday of the current week' },
	{ name: 'Today', value: 'today' },
	{ name: 'Tomorrow', value: 'tomorrow' },
	{ name: 'Yesterday', value: 'yesterday' },
] as const satisfies readonly INodePropertyOptions[];

const pageConcurrency = numberOption(
	'pageConcurrency',
	PAGE_CONCURRENCY,
	"How many list pages to fetch at the same time when the service numbers its pages and gives a total; otherwise pages are read one after the other. Records keep the service's order. The pages of one list share Max Retry Wait, and a Retry-After on one pauses them all.",
);

export const properties: INodeProperties[] = [
	...returnAllOrLimit('appointments'),
	{
		displayName: 'Date Range',
		name: 'dateRange',
		type: 'options',
		default: 'all',
		description: "Which start dates to include, in the chosen time zone (default: the workflow's)",
		options: [...DATE_RANGES],
	},
	...customRangeFields(),
	filtersCollection,
	simplifyProperty,
	optionsCollection(true, [pageConcurrency]),
];
