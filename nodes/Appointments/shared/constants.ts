/**
 * The package's one vocabulary of statuses and events, shared by the action node and both triggers (the sandbox
 * keeps its own, sandbox/vocabulary.ts; test/node/vocabulary.test.ts fails when the two disagree).
 */
import type { INodePropertyOptions } from 'n8n-workflow';

export const STATUSES = [
	{ name: 'Attended', value: 'ATTENDED', description: 'The client attended' },
	{ name: 'Canceled', value: 'CANCELED', description: 'Canceled by the business' },
	{ name: 'Canceled by Client', value: 'CANCELED_CLIENT', description: 'Canceled by the client' },
	{
		name: 'Canceled via External Calendar',
		value: 'CANCELED_GOOGLE',
		description: 'Canceled via an external calendar',
	},
	{ name: 'Confirmed', value: 'CONFIRMED', description: 'Confirmed and expected to take place' },
	{ name: 'In Progress', value: 'IN_PROGRESS', description: 'Taking place now' },
	{ name: 'No Show', value: 'NO_SHOW', description: 'The client did not come' },
	{ name: 'Pending', value: 'PENDING', description: 'Pending confirmation' },
	{
		name: 'Pending Companions',
		value: 'PENDING_COMPANIONS',
		description: 'Awaiting companion details',
	},
	{ name: 'Pending Form', value: 'PENDING_FORM', description: 'Awaiting form submission' },
	{ name: 'Pending Payment', value: 'PENDING_PAYMENT', description: 'Awaiting payment' },
] as const satisfies readonly INodePropertyOptions[];

export const STATUS_VALUES: readonly string[] = STATUSES.map((s) => s.value);

export const EVENTS = [
	{
		name: 'Appointment Canceled',
		value: 'appointment.canceled',
		description: 'An appointment was canceled',
	},
	{
		name: 'Appointment Created',
		value: 'appointment.created',
		description: 'A new appointment was made',
	},
	{
		name: 'Appointment Updated',
		value: 'appointment.updated',
		description: 'An appointment was changed (status or start)',
	},
] as const satisfies readonly INodePropertyOptions[];

export const CREATED = 'appointment.created';
export const CANCELED = 'appointment.canceled';
export const UPDATED = 'appointment.updated';
export const RESCHEDULED = 'appointment.rescheduled';
export const STATUS_CHANGED = 'appointment.status_changed';
export const STARTING_SOON = 'appointment.starting_soon';
export const STARTED = 'appointment.started';

export const CHANGE_EVENTS = [
	...EVENTS,
	{
		name: 'Appointment Rescheduled',
		value: RESCHEDULED,
		description: 'Its start changed; previous holds the start and status before',
	},
	{
		name: 'Appointment Status Changed',
		value: STATUS_CHANGED,
		description:
			'Its status changed (a cancellation is Appointment Canceled); previous holds the status and start before',
	},
] as const;

export const TIME_EVENTS = [
	{
		name: 'Appointment Started',
		value: STARTED,
		description: 'Its start time was reached (at the first poll at or after it)',
	},
	{
		name: 'Appointment Starting Soon',
		value: STARTING_SOON,
		description: 'Its start is less than Lead Time away, e.g. to send a reminder',
	},
] as const;
