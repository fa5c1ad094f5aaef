/** Appointment > Get: GET /api/v3/appointments/{key}/, the full record. */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { requireUuid } from '../../shared';
import { getAppointment } from '../../transport';
import { appointmentKeyField, optionsCollection } from '../common.descriptions';
import type { PrepareOperation } from '../types';

const properties: INodeProperties[] = [appointmentKeyField, optionsCollection(false)];

export const description = updateDisplayOptions(
	{ show: { resource: ['appointment'], operation: ['get'] } },
	properties,
);

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const key = requireUuid(
		this.getNode(),
		this.getNodeParameter('appointmentKey', i),
		'Appointment Key',
		i,
	);
	return async () => await getAppointment(this, key, { itemIndex: i, policy: item.policy });
};
