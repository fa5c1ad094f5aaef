/**
 * Appointment > Cancel: DELETE /api/v3/appointments/{key}/?send_email=true|false. `send_email` is always sent,
 * so the service's undocumented default never decides whether the client gets an e-mail; a DELETE whose answer
 * was lost is not repeated blindly (transport).
 */
import { updateDisplayOptions, type INodeProperties } from 'n8n-workflow';

import { toBoolean } from '../../shared';
import { cancelAppointment } from '../../transport';
import { appointmentKeyField, optionsCollection } from '../common.descriptions';
import type { PrepareOperation } from '../types';
import { appointmentKeyOf } from './key';

const properties: INodeProperties[] = [
	appointmentKeyField,
	{
		displayName: 'Send Email to Client',
		name: 'sendEmail',
		type: 'boolean',
		default: false,
		description: 'Whether the service sends the client a cancellation email',
	},
	optionsCollection(false),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['appointment'], operation: ['cancel'] } },
	properties,
);

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const node = this.getNode();
	const key = appointmentKeyOf(this, i);
	const sendEmail = toBoolean(
		node,
		this.getNodeParameter('sendEmail', i, false),
		'Send Email to Client',
		i,
	);
	// From version 3 on, Retry On Fail composes with the node's own retries: a re-run skips what is done.
	const checkFirst = node.typeVersion >= 3 && node.retryOnFail === true;
	return async () => await cancelAppointment(this, key, sendEmail, { itemIndex: i, policy: item.policy, checkFirst });
};
