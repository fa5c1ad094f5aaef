/** Appointment > Update Status: PATCH /api/v3/appointments/{key}/ {status}; returns the updated appointment. */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { STATUSES, requireStatus } from '../../shared';
import { appointmentPath, mutateAppointment } from '../../transport';
import { appointmentKeyField, optionsCollection } from '../common.descriptions';
import type { PrepareOperation } from '../types';
import { appointmentKeyOf } from './key';

const properties: INodeProperties[] = [
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

export const description = updateDisplayOptions(
	{ show: { resource: ['appointment'], operation: ['updateStatus'] } },
	properties,
);

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const node = this.getNode();
	const key = appointmentKeyOf(this, i);
	const status = requireStatus(node, this.getNodeParameter('status', i), 'Status', i);
	return async () =>
		await mutateAppointment(this, 'PATCH', appointmentPath(key), key, {
			body: { status },
			itemIndex: i,
			policy: item.policy,
		});
};
