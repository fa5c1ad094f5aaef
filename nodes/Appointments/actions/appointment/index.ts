import { resourceDescription } from '../common.descriptions.js';
import * as cancel from './cancel.operation.js';
import * as get from './get.operation.js';
import * as getAll from './getAll.operation.js';
import * as reschedule from './reschedule.operation.js';
import * as updateStatus from './updateStatus.operation.js';

/** In the order their fields are listed. */
export const operations = { getAll, get, updateStatus, reschedule, cancel };

export const description = resourceDescription(
	'appointment',
	[
		{
			name: 'Cancel',
			value: 'cancel',
			description: 'Cancel an appointment, optionally emailing the client',
			action: 'Cancel an appointment',
		},
		{
			name: 'Get',
			value: 'get',
			description: 'Retrieve an appointment',
			action: 'Get an appointment',
		},
		{
			name: 'Get Many',
			value: 'getAll',
			description: 'List appointments by date range and filters',
			action: 'Get many appointments',
		},
		{
			name: 'Reschedule',
			value: 'reschedule',
			description: 'Move an appointment to a new start',
			action: 'Reschedule an appointment',
		},
		{
			name: 'Update Status',
			value: 'updateStatus',
			description: 'Set the status of an appointment',
			action: 'Update the status of an appointment',
		},
	],
	operations,
);
