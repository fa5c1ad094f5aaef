import type { INodeTypeBaseDescription } from 'n8n-workflow';

import { AppointmentsV3 } from '../v3/AppointmentsV3';
import { versionDescription } from './versionDescription';

/**
 * Version 4: Get and Get Many have Output (Simplified, Raw, Selected Fields) instead of Simplify. The list
 * searches, hints, operations and execute() are version 3's.
 */
export class AppointmentsV4 extends AppointmentsV3 {
	constructor(baseDescription: INodeTypeBaseDescription) {
		super(baseDescription);
		this.description = { ...this.description, version: 4, properties: versionDescription };
	}
}
