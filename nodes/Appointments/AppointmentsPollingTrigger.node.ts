import {
	NodeConnectionTypes,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';

import { byText, numberOption } from './actions/common.descriptions.js';
import { searchCalendars } from './listSearch/calendarList.js';
import { CHANGE_EVENTS, STARTED, STARTING_SOON, TIME_EVENTS } from './shared/constants.js';
import { eventFilterProperty } from './shared/eventFilter.js';
import { optionsProperty } from './shared/nodeFields.js';
import { LEAD, listOnce, readPollingOptions, WHOLE_OPTIONS } from './polling/listing.js';
import { logUnreadable, oneAtATime } from './polling/oneAtATime.js';
import { startChanges } from './polling/poll.js';
import { sampleItems } from './polling/sample.js';
import { startTimeEvents } from './polling/timeEvents.js';

const POLLING_EVENTS = [...CHANGE_EVENTS, ...TIME_EVENTS].sort((a, b) => byText(a.name, b.name));

const DOCS = 'https://github.com/n8n-nodes-appointments/n8n-nodes-appointments/blob/main/docs';

export class AppointmentsPollingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Appointments Polling Trigger',
		name: 'appointmentsPollingTrigger',
		icon: { light: 'file:appointments.svg', dark: 'file:appointments.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		description:
			'Starts the workflow when an appointment is created, updated, canceled, starting soon or started, by asking the service at each poll time (no public https needed)',
		defaults: { name: 'Appointments Polling Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'appointmentsApi', required: true }],
		properties: [
			{
				displayName: `Asks the service at each poll time: no public https needed, events come up to one poll late. <a href="${DOCS}/triggers.md#polling-trigger" target="_blank">How it works</a>`,
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: `Once per appointment and start: a rescheduled one again, a canceled one never; none for those already due when you publish. <a href="${DOCS}/reminders.md" target="_blank">Details</a>`,
				name: 'timeNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { events: [STARTING_SOON, STARTED] } },
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				options: POLLING_EVENTS,
				default: [],
				description:
					'The events that start the workflow: created (new appointment), rescheduled (start changed), status changed, updated (status or start changed), canceled, starting soon (Lead Time before the start), started (its start time reached)',
			},
			{
				displayName: 'Lead Time (Minutes)',
				name: 'leadTime',
				type: 'number',
				// No minValue/maxValue: the editor would silently replace -5 or 0; the poll refuses them by name.
				default: 1440,
				hint: `From ${LEAD.min} to ${LEAD.max} minutes (${LEAD.max / 1440} days)`,
				displayOptions: { show: { events: [STARTING_SOON] } },
				description:
					'How long before the start the workflow runs, e.g. 1440 for 24 hours or 60 for 1 hour. For two reminders use two triggers.',
			},
			eventFilterProperty,
			optionsProperty([
				numberOption(
					'daysAhead',
					WHOLE_OPTIONS.daysAhead,
					'How many days ahead appointments are watched; more days cost more requests per poll',
				),
				numberOption(
					'daysBack',
					WHOLE_OPTIONS.daysBack,
					'How many days after their start appointments stay watched, e.g. to see them marked attended or no-show',
				),
				numberOption(
					'maxWatched',
					WHOLE_OPTIONS.maxWatched,
					'The most appointments the trigger remembers between polls; a poll that needs more fails and says so',
				),
				{
					displayName: 'Simplify',
					name: 'simplify',
					type: 'boolean',
					default: false,
					description:
						'Whether to return the key fields of the appointment with the event and timestamp instead of the whole event',
				},
			]),
		],
	};

	methods = { listSearch: { searchCalendars } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const options = readPollingOptions(this);
		if (this.getMode() === 'manual') return await sampleItems(this, options);
		return await oneAtATime(this, async () => {
			// One listing serves both parts; every request before any state is written: a failed poll changes nothing.
			const unreadable = new Map<string, string>();
			const time = startTimeEvents(this, options);
			const changes = await startChanges(this, options, unreadable);
			await listOnce(this, [time, changes], unreadable);
			await time.finish();
			await changes.finish();
			const items = [...changes.commit(), ...time.commit()];
			logUnreadable(this, unreadable);
			return items.length > 0 ? [items] : null;
		});
	}
}
