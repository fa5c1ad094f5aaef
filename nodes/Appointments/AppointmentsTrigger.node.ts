import { NodeConnectionTypes, type INodeType, type INodeTypeDescription } from 'n8n-workflow';

import { searchCalendars } from './listSearch/calendarList.js';
import { eventFields, optionsProperty } from './shared/nodeFields.js';
import { eventFilterProperty } from './shared/eventFilter.js';
import { DEFAULT_WINDOW, MAX_WINDOW } from './trigger/dedupe.js';
import { DEDUPE_CHOICES } from './trigger/config.js';
import { checkExists, create, remove } from './trigger/lifecycle.js';
import { receive } from './trigger/receive.js';

/** Starts a workflow when the service notifies an appointment event: subscribing in trigger/lifecycle.ts, each notification in trigger/receive.ts. */
export class AppointmentsTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Appointments Trigger',
		name: 'appointmentsTrigger',
		icon: { light: 'file:appointments.svg', dark: 'file:appointments.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].concat($parameter["otherEvents"] || []).join(", ")}}',
		// n8n's node creator merges this trigger with the Appointments node (same name but "Trigger") and shows this
		// text for both, under "What happens next?" too: it says what each of them does.
		description:
			'Find, change and cancel appointments, or start a workflow when one is created, updated or canceled',
		defaults: { name: 'Appointments Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'appointmentsApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// The service only needs a 2xx; without this n8n 2.41 answers the literal text "firstEntryJson".
				responseData: 'noData',
				path: 'webhook',
			},
		],
		properties: [
			{
				// A notice, always shown: without https the trigger cannot work at all.
				displayName:
					'The service only calls https addresses: n8n must be reachable over https at its N8N_WEBHOOK_URL. See the docs for a reverse proxy or a tunnel. Events that do not match the Filters start no execution.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			// Events is not required: Other Events alone is a valid choice; activation checks that one of them is filled.
			...eventFields(
				'The events that start the workflow; pick at least one here or in Other Events',
				'Further event names, separated by commas, for events the list above does not offer yet',
			),
			{
				// The service's envelope holds the appointment as it is now, and n8n keeps no state for a webhook
				// handler: there is nothing to compare with, so the polling trigger is where before/after lives.
				displayName:
					'Each event holds the appointment as it is now, not what it was before: for the previous start or status (Appointment Rescheduled, Appointment Status Changed), use the Appointments Polling Trigger.',
				name: 'previousNotice',
				type: 'notice',
				default: '',
			},
			eventFilterProperty,
			optionsProperty([
				{
					displayName: 'Dedupe Key',
					name: 'dedupeKey',
					type: 'options',
					options: [...DEDUPE_CHOICES],
					default: 'eventKeyTimestamp',
					description:
						'How a notification that arrives twice is recognised, so that it starts the workflow once',
				},
				{
					displayName: 'Dedupe Window',
					name: 'dedupeWindow',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: MAX_WINDOW },
					default: DEFAULT_WINDOW,
					description:
						'How many recent notifications this n8n remembers to spot repeats; a restart forgets them',
				},
				{
					displayName: 'Simplify',
					name: 'simplify',
					type: 'boolean',
					default: false,
					description:
						'Whether to return only the main fields of the appointment with the event and its time',
				},
				{
					displayName: 'Verify With API',
					name: 'verifyWithApi',
					type: 'boolean',
					default: false,
					description:
						'Whether to read the appointment from the service and output its current record; an appointment it does not know starts nothing, except a cancellation (its delivered data)',
				},
			]),
		],
	};

	methods = { listSearch: { searchCalendars } };

	webhookMethods: INodeType['webhookMethods'] = {
		default: {
			checkExists() {
				return checkExists.call(this);
			},
			create() {
				return create.call(this);
			},
			delete() {
				return remove.call(this);
			},
		},
	};

	webhook = receive;
}
