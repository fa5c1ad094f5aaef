import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { searchAppointments, searchCalendars, searchWebhooks } from '../listSearch';
import { hints } from '../v2/versionDescription';
import { AppointmentsV2 } from '../v2/AppointmentsV2';
import { versionDescription } from './versionDescription';

/**
 * Version 3: the expert knobs under Advanced, Options keeps Time Zone, and Get Many's Calendar is picked from a
 * list. The operations and execute() are version 1's: the router reads Options and Advanced together.
 */
export class AppointmentsV3 extends AppointmentsV2 {
	methods = { listSearch: { searchAppointments, searchWebhooks, searchCalendars } };

	constructor(baseDescription: INodeTypeBaseDescription) {
		super(baseDescription);
		this.description = { ...this.description, version: 3, properties: versionDescription, hints };
	}
}
