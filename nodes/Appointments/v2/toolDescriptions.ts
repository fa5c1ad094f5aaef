import type { INodeProperties } from 'n8n-workflow';

/**
 * What an AI agent reads about each operation when the node is used as a tool (Appointments Tool): when to use
 * it, what it needs, what it returns. One "Description" field per operation, shown only in tool mode and
 * prefilled with this text; n8n then uses it as the tool's description instead of the short action name.
 */
const TOOL_DESCRIPTIONS: Record<string, Record<string, string>> = {
	appointment: {
		getAll:
			'Finds appointments of the scheduling service. Use it to answer who has an appointment when, or to look up the appointment_key of an appointment before getting, changing, rescheduling or canceling it. Filter by date range, status, person name (part of it), email, phone, appointment code (search_code) or calendar_key. Returns one object per appointment: appointment_key, search_code, status, start_date (ISO 8601 with offset), calendar {calendar_key, name}, person {full_name, email}.',
		get: 'Reads one appointment by its appointment_key (a UUID from Get Many). Use it to check the current status or start of an appointment before changing it. Returns appointment_key, search_code, status, start_date, calendar and person.',
		updateStatus:
			'Sets the status of one appointment given its appointment_key: CONFIRMED, PENDING, ATTENDED, IN_PROGRESS, NO_SHOW, PENDING_PAYMENT, PENDING_FORM or PENDING_COMPANIONS (to cancel, use the cancel tool). Use it to confirm an appointment or mark it attended or as a no-show. Changes data. Returns the updated appointment.',
		findFreeTimes:
			"Finds the free start times of one calendar (its calendar_key, from an appointment's calendar) in a date range, within opening hours, for an appointment of a given duration in minutes. Use it before moving an appointment: find a free time first, then Reschedule with Only If Free. Reads only; safe to repeat. Returns one object per free time: start and end (ISO 8601 with the account's offset), when (a readable line), calendar.",
		reschedule:
			"Moves one appointment to a new start given its appointment_key and the new start (ISO 8601; without an offset it is read in the workflow's time zone). Changes data: do not repeat it once it succeeded. Find a free time first (Find Free Times); with Only If Free on it refuses a taken slot and returns rescheduled: false, reason 'slot taken', the appointments in the way and nextFreeTimes later that day within the hours it already has appointments: offer one of those and try again. Otherwise returns the updated appointment (with Only If Free: rescheduled: true and conflictsAfterMove, what overlaps it after the move; null when that re-check failed: the move still happened).",
		cancel:
			'Cancels one appointment given its appointment_key, optionally emailing the client. Changes data and may e-mail the client: use it only when the user asks to cancel, and never repeat it. Returns the canceled appointment.',
	},
	webhook: {
		getAll:
			'Lists the webhooks (callback URL and events) of the scheduling service. Returns webhook_key, url and events for each.',
		create:
			'Subscribes an https callback URL to appointment events (appointment.created, appointment.updated, appointment.canceled). Changes data: do not repeat it. Returns the webhook with its webhook_key.',
		update:
			'Replaces the callback URL and events of one webhook given its webhook_key. Changes data. Returns the updated webhook.',
		delete:
			'Deletes one webhook given its webhook_key. Changes data. Returns { deleted: true, webhook_key }.',
	},
};

export const toolDescriptionProperties: INodeProperties[] = Object.entries(
	TOOL_DESCRIPTIONS,
).flatMap(([resource, operations]) =>
	Object.entries(operations).map(
		([operation, text]): INodeProperties => ({
			displayName: 'Description',
			name: 'toolDescription',
			type: 'string',
			default: text,
			typeOptions: { rows: 3 },
			description:
				'What the AI agent reads about this tool: when to use it, what it needs and what it returns',
			displayOptions: { show: { '@tool': [true], resource: [resource], operation: [operation] } },
		}),
	),
);
