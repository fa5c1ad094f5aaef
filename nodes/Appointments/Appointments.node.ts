import { VersionedNodeType, type INodeTypeBaseDescription } from 'n8n-workflow';

import { AppointmentsV1 } from './v1/AppointmentsV1';
import { AppointmentsV2 } from './v2/AppointmentsV2';

/**
 * Appointments: manage appointments and webhook subscriptions of the scheduling service. Version 2 picks
 * appointments and subscriptions from lists (resource locators) and simplifies Get; saved version-1 workflows
 * keep version 1's parameters and outputs. Both versions share the operations (actions/).
 */
export class Appointments extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'Appointments',
			name: 'appointments',
			icon: { light: 'file:appointments.svg', dark: 'file:appointments.dark.svg' },
			group: ['transform'],
			subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
			description: 'Manage appointments and webhooks of the scheduling service',
			defaultVersion: 2,
		};
		super(
			{ 1: new AppointmentsV1(baseDescription), 2: new AppointmentsV2(baseDescription) },
			baseDescription,
		);
	}
}
