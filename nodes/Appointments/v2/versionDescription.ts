import type { INodeProperties, NodeHint } from 'n8n-workflow';

import { SIMPLIFY_DESCRIPTION } from '../actions/appointment/getAll.operation';
import { resourceProperty, versionDescription as v1Properties } from '../v1/versionDescription';
import { appointmentLocator, webhookLocator } from './locators';
import { toolDescriptionProperties } from './toolDescriptions';


/**
 * Version 2's fields are version 1's with the Appointment and Webhook keys as resource locators (From List,
 * By Key) and a Simplify for Get, shaped like Get Many's so a simplified item feeds the next node's filters.
 */
function toV2(property: INodeProperties): INodeProperties[] {
	const { displayOptions } = property;
	if (property.name === 'appointmentKey') {
		const locator = { ...appointmentLocator, displayOptions };
		if (!displayOptions?.show?.operation?.includes('get')) return [locator];
		return [
			locator,
			{
				displayName: 'Simplify',
				name: 'simplify',
				type: 'boolean',
				default: true,
				description: SIMPLIFY_DESCRIPTION,
				displayOptions,
			},
		];
	}
	if (property.name === 'webhookKey') return [{ ...webhookLocator, displayOptions }];
	return [property];
}

export const versionDescription: INodeProperties[] = [
	...toolDescriptionProperties,
	resourceProperty,
	...v1Properties.filter((property) => property !== resourceProperty).flatMap(toV2),
];

const isAppointmentGetMany = '$parameter.resource === "appointment" && $parameter.operation === "getAll"';

export const hints: NodeHint[] = [
	{
		type: 'warning',
		location: 'ndv',
		whenToDisplay: 'beforeExecution',
		message:
			'Return All reads every page the filters match: on a large account that can be tens of thousands of appointments. Narrow it with Date Range or Filters, or set a Limit.',
		displayCondition: `={{ ${isAppointmentGetMany} && $parameter.returnAll === true && $parameter.dateRange === "all" }}`,
	},
	{
		type: 'info',
		location: 'ndv',
		whenToDisplay: 'always',
		message:
			"Date Range and dates without an offset are read in the workflow's time zone (workflow Settings), or in Options > Time Zone when set.",
		displayCondition: `={{ ${isAppointmentGetMany} && $parameter.dateRange !== "all" }}`,
	},
];
