/** Appointment > Update Status: PATCH /api/v3/appointments/{key}/ {status}; returns the updated appointment. */
import type { INodeProperties } from 'n8n-workflow';

import { STATUSES } from '../../shared/constants.js';
import { requireStatus } from '../../shared/validation.js';
import { appointmentPath, mutateAppointment } from '../../transport/resources/appointmentCalls.js';
import { appointmentKeyField, optionsCollection } from '../common.descriptions.js';
import { readAppointmentKey } from '../keys.js';
import type { PrepareOperation } from '../types.js';

export const properties: INodeProperties[] = [
	appointmentKeyField,
	{
		displayName: 'Status',
		name: 'status',
		type: 'options',
		required: true,
		options: [...STATUSES],
		default: 'CONFIRMED',
		description: 'The new status of the appointment',
	},
	optionsCollection(false),
];

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const key = readAppointmentKey(this, i);
	const status = requireStatus(this.getNode(), this.getNodeParameter('status', i), 'Status', i);
	const opts = { body: { status }, itemIndex: i, policy: item.policy };
	return async () => await mutateAppointment(this, 'PATCH', appointmentPath(key), key, opts);
};
