/** Appointment > Get: GET /api/v3/appointments/{key}/; the full record, Get Many's fields (Simplify, version 2) or the Output picked (version 4). */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { getAppointment } from '../../transport';
import { appointmentKeyField, optionsCollection } from '../common.descriptions';
import type { PrepareOperation } from '../types';
import { appointmentKeyOf } from './key';
import { readShape } from './output';

const properties: INodeProperties[] = [appointmentKeyField, optionsCollection(false)];

export const description = updateDisplayOptions(
	{ show: { resource: ['appointment'], operation: ['get'] } },
	properties,
);

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const key = appointmentKeyOf(this, i);
	// Version 1 has no Simplify: its Get keeps returning the full record.
	const shape = readShape(this, i, false);
	return async () => {
		const record = await getAppointment(this, key, { itemIndex: i, policy: item.policy });
		return shape ? shape(record) : record;
	};
};
