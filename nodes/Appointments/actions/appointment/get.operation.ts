/** Appointment > Get: GET /api/v3/appointments/{key}/; the full record, or with Simplify (version 2) Get Many's fields. */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { simplifyAppointment } from '../../shared';
import { getAppointment } from '../../transport';
import { appointmentKeyField, optionsCollection } from '../common.descriptions';
import type { PrepareOperation } from '../types';
import { appointmentKeyOf } from './key';

const properties: INodeProperties[] = [appointmentKeyField, optionsCollection(false)];

export const description = updateDisplayOptions(
	{ show: { resource: ['appointment'], operation: ['get'] } },
	properties,
);

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const key = appointmentKeyOf(this, i);
	// Version 1 has no Simplify: its Get keeps returning the full record.
	const simplify = this.getNodeParameter('simplify', i, false) as boolean;
	return async () => {
		const record = await getAppointment(this, key, { itemIndex: i, policy: item.policy });
		return simplify ? simplifyAppointment(record) : record;
	};
};
