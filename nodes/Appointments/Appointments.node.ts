import { VersionedNodeType, type INodeTypeBaseDescription } from 'n8n-workflow';

import { AppointmentsV1 } from './v1/AppointmentsV1';
import { AppointmentsV2 } from './v2/AppointmentsV2';
import { AppointmentsV3 } from './v3/AppointmentsV3';
import { AppointmentsV4 } from './v4/AppointmentsV4';

/**
 * Appointments: manage appointments and webhooks of the scheduling service. Version 2 picks appointments and
 * webhooks from lists (resource locators) and simplifies Get; version 3 moves the expert knobs under Advanced
 * and picks Get Many's Calendar from a list; version 4 offers Output (Simplified, Raw, Selected Fields) in Get
 * and Get Many. Saved workflows keep their version's parameters and outputs; all versions share the operations
 * (actions/).
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
			defaultVersion: 4,
		};
		super(
			{
				1: new AppointmentsV1(baseDescription),
				2: new AppointmentsV2(baseDescription),
				3: new AppointmentsV3(baseDescription),
				4: new AppointmentsV4(baseDescription),
			},
			baseDescription,
		);
	}
}
