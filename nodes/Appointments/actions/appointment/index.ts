import type { INodeProperties } from 'n8n-workflow';

import { resourceDescription } from '../common.descriptions.js';
import * as cancel from './cancel.operation.js';
import * as findFreeTimes from './findFreeTimes.operation.js';
import * as get from './get.operation.js';
import * as getAll from './getAll.operation.js';
import * as reschedule from './reschedule.operation.js';
import * as updateStatus from './updateStatus.operation.js';

/** In the order their fields are listed. */
export const operations = { getAll, get, findFreeTimes, updateStatus, reschedule, cancel };

const OPTIONS = [
	{
		name: 'Cancel',
		value: 'cancel',
		description: 'Cancel an appointment, optionally emailing the client',
		action: 'Cancel an appointment',
	},
	{
		name: 'Find Free Times',
		value: 'findFreeTimes',
		description: 'List the free start times of a calendar in opening hours',
		action: 'Find free times in a calendar',
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
];

/** Find Free Times is offered from version 4 on (it picks its calendar from a list, which earlier versions lack). */
const [operation, ...fields] = resourceDescription('appointment', OPTIONS, operations);
const since4 = (gte: boolean): INodeProperties => ({
	...operation,
	options: gte ? OPTIONS : OPTIONS.filter((option) => option.value !== 'findFreeTimes'),
	displayOptions: {
		show: {
			resource: ['appointment'],
			'@version': [gte ? { _cnd: { gte: 4 } } : { _cnd: { lt: 4 } }],
		},
	},
});
export const description = [since4(false), since4(true), ...fields];
