/** Appointment > Get: GET /api/v3/appointments/{key}/; the full record, Get Many's fields (Simplify, version 2) or the Output picked (version 4). */
import type { INodeProperties } from 'n8n-workflow';

import { getAppointment } from '../../transport/resources/appointmentCalls.js';
import { appointmentKeyField, optionsCollection } from '../common.descriptions.js';
import { readAppointmentKey } from '../keys.js';
import type { PrepareOperation } from '../types.js';
import { readShape } from './output.js';

export const properties: INodeProperties[] = [appointmentKeyField, optionsCollection(false)];

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const key = readAppointmentKey(this, i);
	const shape = readShape(this, i, false);
	return async () => {
		const record = await getAppointment(this, key, { itemIndex: i, policy: item.policy });
		return shape ? shape(record) : record;
	};
};
