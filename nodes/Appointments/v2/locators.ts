import type { INodeProperties } from 'n8n-workflow';

import { UUID_OPTIONAL_HYPHENS } from '../shared';

export const appointmentLocator: INodeProperties = {
	displayName: 'Appointment',
	name: 'appointmentKey',
	type: 'resourceLocator',
	required: true,
	default: { mode: 'list', value: '' },
	description:
		'The appointment to act on. As a tool input: its appointment_key, a UUID such as 3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e, as returned by Get Many.',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select an appointment...',
			typeOptions: { searchListMethod: 'searchAppointments', searchable: true },
		},
		{
			displayName: 'By Key',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e',
			hint: 'The appointment_key of the appointment, a UUID (hyphens optional)',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: UUID_OPTIONAL_HYPHENS,
						errorMessage:
							'Not an appointment key: expected a UUID such as 3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e (hyphens optional)',
					},
				},
			],
		},
	],
};

export const webhookLocator: INodeProperties = {
	displayName: 'Webhook',
	name: 'webhookKey',
	type: 'resourceLocator',
	required: true,
	default: { mode: 'list', value: '' },
	description: 'The webhook to change. As a tool input: its webhook_key, as returned by Get Many.',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a webhook...',
			typeOptions: { searchListMethod: 'searchWebhooks', searchable: true },
		},
		{
			displayName: 'By Key',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 7c0e4b1a-2f3d-4e5f-8a9b-0c1d2e3f4a5b',
			hint: 'The webhook_key of the webhook, as Get Many returns it',
		},
	],
};
