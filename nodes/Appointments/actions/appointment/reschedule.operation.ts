/**
 * Appointment > Reschedule: PATCH /api/v3/appointments/{key}/reschedule/ {start_date} with ISO 8601 and the
 * offset of the chosen time zone; returns the updated appointment.
 */
import type { INodeProperties } from 'n8n-workflow';

import { offsetIsoValue } from '../../shared/validation.js';
import { appointmentPath, mutateAppointment } from '../../transport/resources/appointmentCalls.js';
import { appointmentKeyField, optionsCollection } from '../common.descriptions.js';
import { readAppointmentKey } from '../keys.js';
import type { PrepareOperation } from '../types.js';

export const properties: INodeProperties[] = [
	appointmentKeyField,
	{
		displayName: 'New Start',
		name: 'startDate',
		type: 'dateTime',
		required: true,
		default: '',
		description:
			"The new start; a time without an offset is read in the chosen time zone (default: the workflow's)",
		hint: 'The service does not check that the new time is free: check availability first',
	},
	optionsCollection(true),
];

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const key = readAppointmentKey(this, i);
	const startDate = offsetIsoValue(
		this.getNode(),
		this.getNodeParameter('startDate', i),
		'New Start',
		i,
		item.zone(),
	);
	const body = { start_date: startDate };
	return async () =>
		await mutateAppointment(this, 'PATCH', appointmentPath(key, 'reschedule'), key, {
			body,
			itemIndex: i,
			policy: item.policy,
		});
};
