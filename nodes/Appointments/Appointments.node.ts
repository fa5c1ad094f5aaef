import {
	NodeConnectionTypes,
	VersionedNodeType,
	type INodeProperties,
	type INodeType,
	type INodeTypeBaseDescription,
} from 'n8n-workflow';

import { router } from './actions/router.js';
import { searchAppointments } from './listSearch/appointmentList.js';
import { searchCalendars } from './listSearch/calendarList.js';
import { searchWebhooks } from './listSearch/webhookList.js';
import { versionDescription as v1 } from './v1/versionDescription.js';
import { hints, versionDescription as v2 } from './v2/versionDescription.js';
import { versionDescription as v3 } from './v3/versionDescription.js';
import { versionDescription as v4 } from './v4/versionDescription.js';

/** New for each node: n8n's loader rewrites the icon of the description it loads, in place. */
const baseDescription = (): INodeTypeBaseDescription => ({
	displayName: 'Appointments',
	name: 'appointments',
	icon: { light: 'file:appointments.svg', dark: 'file:appointments.dark.svg' },
	group: ['transform'],
	subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
	description: 'Manage appointments and webhooks of the scheduling service',
	defaultVersion: 4,
});

/** One version: its own fields (vN/versionDescription.ts), the operations and item loop all versions share. */
function nodeVersion(version: number, properties: INodeProperties[]): INodeType {
	const lists = { searchAppointments, searchWebhooks };
	return {
		description: {
			...baseDescription(),
			version,
			defaults: { name: 'Appointments' },
			usableAsTool: true,
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: 'appointmentsApi', required: true }],
			properties,
			...(version >= 2 && { hints }),
		},
		...(version >= 2 && {
			methods: { listSearch: version >= 3 ? { ...lists, searchCalendars } : lists },
		}),
		execute: router,
	};
}

/** Appointments: saved workflows keep their version's parameters and outputs. */
export class Appointments extends VersionedNodeType {
	constructor() {
		super(
			{
				1: nodeVersion(1, v1),
				2: nodeVersion(2, v2),
				3: nodeVersion(3, v3),
				4: nodeVersion(4, v4),
			},
			baseDescription(),
		);
	}
}
