/**
 * What the webhook trigger tells a builder before it runs: in n8n's node creator, where n8n shows this trigger's
 * description for the Appointments node too, and in its panel, under the events, that an event carries no
 * previous values (the polling trigger has them).
 */
import type { INodeTypeDescription } from 'n8n-workflow';

import { Appointments } from '../../nodes/Appointments/Appointments.node';
import { AppointmentsPollingTrigger } from '../../nodes/Appointments/AppointmentsPollingTrigger.node';
import { AppointmentsTrigger } from '../../nodes/Appointments/AppointmentsTrigger.node';

const trigger = new AppointmentsTrigger().description;

test("the node creator's one entry for the Appointments node and its trigger describes both, not only the trigger", () => {
	// n8n's editor (useActionsGeneration): a trigger whose name without "Trigger" is an action node's name is merged
	// into that node's entry, which then shows the trigger's description, "What happens next?" included.
	const nodes = [
		new Appointments().description,
		trigger,
		new AppointmentsPollingTrigger().description,
	] as INodeTypeDescription[];
	const actions = nodes.filter((n) => !n.group.includes('trigger'));
	const merged = nodes
		.filter((n) => n.group.includes('trigger'))
		.map((t) => ({
			entry: actions.find((a) => a.name === t.name.replace('Trigger', '')),
			description: t.description,
		}))
		.filter((m) => m.entry !== undefined);
	expect(merged.map((m) => m.entry!.name)).toEqual(['appointments']);
	expect(merged[0].description).not.toMatch(/^Starts the workflow/);
	expect(merged[0].description).toMatch(
		/^Find, change and cancel appointments, or start a workflow when one is created, updated or canceled$/,
	);
});

test('under the events it says that an event carries no previous values, and where they are', () => {
	const names = trigger.properties.map((p) => p.name);
	const notice = trigger.properties.find((p) => p.name === 'previousNotice')!;
	expect(notice.type).toBe('notice');
	expect(names.indexOf('previousNotice')).toBe(names.indexOf('otherEvents') + 1);
	expect(notice.displayName).toMatch(/as it is now, not what it was before/);
	expect(notice.displayName).toMatch(
		/Appointment Rescheduled, Appointment Status Changed\), use the Appointments Polling Trigger\.$/,
	);
});
