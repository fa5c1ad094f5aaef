import type { INodeProperties, NodeHint } from 'n8n-workflow';

import { simplifyProperty } from '../actions/appointment/getAll.fields.js';
import { keyLocator } from '../shared/calendar.js';
import { resourceProperty, versionDescription as v1Properties } from '../v1/versionDescription.js';
import { toolDescriptionProperties } from './toolDescriptions.js';

const appointmentLocator = keyLocator({
	displayName: 'Appointment',
	name: 'appointmentKey',
	description:
		'The appointment to act on. As a tool input: its appointment_key, a UUID such as 3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e, as returned by Get Many.',
	listMethod: 'searchAppointments',
	listPlaceholder: 'Select an appointment...',
	idPlaceholder: 'e.g. 3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e',
	hint: 'The appointment_key of the appointment, a UUID (hyphens optional)',
	notUuid:
		'Not an appointment key: expected a UUID such as 3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e (hyphens optional)',
});

const webhookLocator = keyLocator({
	displayName: 'Webhook',
	name: 'webhookKey',
	description: 'The webhook to change. As a tool input: its webhook_key, as returned by Get Many.',
	listMethod: 'searchWebhooks',
	listPlaceholder: 'Select a webhook...',
	idPlaceholder: 'e.g. 7c0e4b1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b',
	hint: 'The webhook_key of the webhook, as Get Many returns it',
});

/**
 * Version 2's fields are version 1's with the Appointment and Webhook keys as resource locators (From List,
 * By Key), required where the keys were, and Get Many's Simplify for Get.
 */
function toV2(property: INodeProperties): INodeProperties[] {
	const { displayOptions } = property;
	const asKey = { required: true, displayOptions };
	if (property.name === 'webhookKey') return [{ ...webhookLocator, ...asKey }];
	if (property.name !== 'appointmentKey') return [property];
	const locator = { ...appointmentLocator, ...asKey };
	return displayOptions?.show?.operation?.includes('get')
		? [locator, { ...simplifyProperty, displayOptions }]
		: [locator];
}

export const versionDescription: INodeProperties[] = [
	...toolDescriptionProperties,
	resourceProperty,
	...v1Properties.filter((property) => property !== resourceProperty).flatMap(toV2),
];

const isAppointmentGetMany =
	'$parameter.resource === "appointment" && $parameter.operation === "getAll"';

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
			"Date Range and its dates without an offset are read in the workflow's time zone (workflow Settings), or in Options > Time Zone when set.",
		displayCondition: `={{ ${isAppointmentGetMany} && $parameter.dateRange !== "all" }}`,
	},
];
