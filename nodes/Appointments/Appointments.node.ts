import { VersionedNodeType, type INodeTypeBaseDescription } from 'n8n-workflow';

import { AppointmentsVersion } from './actions/nodeVersion.js';
import { searchAppointments } from './listSearch/appointmentList.js';
import { searchCalendars } from './listSearch/calendarList.js';
import { searchWebhooks } from './listSearch/webhookList.js';
import { versionDescription as v1 } from './v1/versionDescription.js';
import { hints, versionDescription as v2 } from './v2/versionDescription.js';
import { versionDescription as v3 } from './v3/versionDescription.js';
import { versionDescription as v4 } from './v4/versionDescription.js';

/** Appointments: each version's fields in vN/versionDescription.ts; saved workflows keep their version's parameters and outputs. */
export class Appointments extends VersionedNodeType {
	constructor() {
		const base: INodeTypeBaseDescription = {
			displayName: 'Appointments',
			name: 'appointments',
			icon: { light: 'file:appointments.svg', dark: 'file:appointments.dark.svg' },
			group: ['transform'],
			subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
			description: 'Manage appointments and webhooks of the scheduling service',
			defaultVersion: 4,
		};
		const lists = { searchAppointments, searchWebhooks };
		const withCalendars = { ...lists, searchCalendars };
		super(
			{
				1: new AppointmentsVersion(base, 1, v1),
				2: new AppointmentsVersion(base, 2, v2, { hints, listSearch: lists }),
				3: new AppointmentsVersion(base, 3, v3, { hints, listSearch: withCalendars }),
				4: new AppointmentsVersion(base, 4, v4, { hints, listSearch: withCalendars }),
			},
			base,
		);
	}
}
