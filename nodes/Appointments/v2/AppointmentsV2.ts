import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { searchAppointments, searchWebhooks } from '../listSearch';
import { AppointmentsV1 } from '../v1/AppointmentsV1';
import { hints, versionDescription } from './versionDescription';

/**
 * Version 2: appointments and subscriptions picked from lists (resource locators); Get has Simplify. The
 * operations and execute() are version 1's: they read keys with extractValue, which serves both.
 */
export class AppointmentsV2 extends AppointmentsV1 {
	methods = { listSearch: { searchAppointments, searchWebhooks } };

	constructor(baseDescription: INodeTypeBaseDescription) {
		super(baseDescription);
		this.description = { ...this.description, version: 2, properties: versionDescription, hints };
	}
}
