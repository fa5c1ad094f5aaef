import {
	NodeConnectionTypes,
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';

import { searchCalendars } from './listSearch';
import { EVENTS, eventFilterProperty, eventList, readEventFilter, withoutItem } from './shared';
import { pollChanges, sampleEvent, type PollingOptions } from './polling/poll';

function readOptions(ctx: IPollFunctions): PollingOptions {
	const node = ctx.getNode();
	let events: string[];
	try {
		events = eventList(node, ctx.getNodeParameter('events', []), undefined, 0);
	} catch (error) {
		throw withoutItem(node, error);
	}
	const options = (ctx.getNodeParameter('options', {}) ?? {}) as IDataObject;
	const whole = (name: string, label: string, fallback: number, min: number, max: number) => {
		const value = options[name] ?? fallback;
		if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
			throw new NodeOperationError(
				node,
				`The option "${label}" must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`,
				{ description: `Set "${label}" under Options to a whole number from ${min} to ${max}, or remove it to use ${fallback}.` },
			);
		}
		return value;
	};
	return {
		events: new Set(events),
		filter: readEventFilter(node, ctx.getNodeParameter('filters', {})),
		daysBack: whole('daysBack', 'Days Back', 1, 0, 31),
		daysAhead: whole('daysAhead', 'Days Ahead', 30, 1, 366),
		maxWatched: whole('maxWatched', 'Max Watched Appointments', 20000, 100, 200000),
		simplify: options.simplify === true,
	};
}

export class AppointmentsPollingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Appointments Polling Trigger',
		name: 'appointmentsPollingTrigger',
		icon: { light: 'file:appointments.svg', dark: 'file:appointments.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		description:
			'Starts the workflow when an appointment is created, updated or canceled, by asking the service at each poll time (no public https needed)',
		defaults: { name: 'Appointments Polling Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'appointmentsApi', required: true }],
		properties: [
			{
				displayName:
					'Asks the service for changes at each poll time, so n8n needs no public https address; events arrive up to one poll interval late. Changes that do not match the Filters start no execution.',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				options: [...EVENTS],
				default: [],
				description:
					'The events that start the workflow: created (new appointment), updated (status or start changed), canceled',
			},
			eventFilterProperty,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Days Ahead',
						name: 'daysAhead',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 366 },
						default: 30,
						description: 'How many days ahead appointments are watched; more days cost more requests per poll',
					},
					{
						displayName: 'Days Back',
						name: 'daysBack',
						type: 'number',
						typeOptions: { minValue: 0, maxValue: 31 },
						default: 1,
						description:
							'How many days after their start appointments stay watched, e.g. to see them marked attended or no-show',
					},
					{
						displayName: 'Max Watched Appointments',
						name: 'maxWatched',
						type: 'number',
						typeOptions: { minValue: 100, maxValue: 200000 },
						default: 20000,
						description: 'The most appointments the trigger remembers between polls; a poll that needs more fails and says so',
					},
					{
						displayName: 'Simplify',
						name: 'simplify',
						type: 'boolean',
						default: false,
						description:
							'Whether to return the key fields of the appointment with the event and timestamp instead of the whole event',
					},
				],
			},
		],
	};

	methods = { listSearch: { searchCalendars } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const options = readOptions(this);
		if (this.getMode() === 'manual') return await sampleEvent(this, options);
		return await pollChanges(this, options);
	}
}
