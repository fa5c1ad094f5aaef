/**
 * Field descriptions more than one node shows, each node with its own wording: the Options collection and the
 * Events / Other Events pair.
 */
import type { INodeProperties } from 'n8n-workflow';

import { EVENTS } from './constants.js';

/** The "Options" collection around a node's options, in the order given. */
export function optionsProperty(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

/** Events (the three the service documents) and Other Events (further names, typed with commas between them). */
export function eventFields(
	eventsDescription: string,
	otherEventsDescription: string,
): INodeProperties[] {
	return [
		{
			displayName: 'Events',
			name: 'events',
			type: 'multiOptions',
			options: [...EVENTS],
			default: [],
			description: eventsDescription,
		},
		{
			displayName: 'Other Events',
			name: 'otherEvents',
			type: 'string',
			default: '',
			placeholder: 'e.g. appointment.rescheduled',
			description: otherEventsDescription,
		},
	];
}
