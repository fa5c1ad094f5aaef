/**
 * Appointment > Cancel: DELETE /api/v3/appointments/{key}/?send_email=true|false. `send_email` is always sent,
 * so the service's undocumented default never decides whether the client gets an e-mail; an appointment already
 * cancelled is not cancelled (nor its client e-mailed) again, and a DELETE whose answer was lost is not repeated
 * blindly (transport).
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { toBoolean } from '../../shared/validation.js';
import { cancelAppointment } from '../../transport/resources/appointmentCalls.js';
import { appointmentKeyField, optionsCollection } from '../common.descriptions.js';
import { readAppointmentKey } from '../keys.js';
import type { PrepareOperation } from '../types.js';

export const properties: INodeProperties[] = [
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

/** One hint per run, however many items were already cancelled (their items are the appointments as they are). */
const hinted = new WeakSet<IExecuteFunctions>();

export const prepare: PrepareOperation = function (item) {
	const i = item.itemIndex;
	const node = this.getNode();
	const key = readAppointmentKey(this, i);
	const given = this.getNodeParameter('sendEmail', i, false);
	const sendEmail = toBoolean(node, given, 'Send Email to Client', i);
	const opts = { itemIndex: i, policy: item.policy };
	return async () => {
		const { record, alreadyCancelled } = await cancelAppointment(this, key, sendEmail, opts);
		if (alreadyCancelled && !hinted.has(this) && typeof this.addExecutionHints === 'function') {
			hinted.add(this);
			this.addExecutionHints({
				message:
					'Some appointments were already canceled: they were not canceled again and their clients got no email',
				type: 'info',
				location: 'outputPane',
			});
		}
		// A field of our own beside the service's record changes the output's shape: from version 4 on only.
		return node.typeVersion >= 4 ? { ...record, already_canceled: alreadyCancelled } : record;
	};
};
