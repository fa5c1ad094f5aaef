/** The appointment or webhook an item names, checked before anything is sent; errors name the field as its version labels it. */
import type { IExecuteFunctions } from 'n8n-workflow';

import {
	canonicalUuid,
	inputError,
	requirePathKey,
	UUID_EXPECTED,
	withFix,
} from '../shared/validation.js';

/** A UUID however it was given (version 2's locator: from the list, a URL or a key), sent hyphenated. */
export function readAppointmentKey(ctx: IExecuteFunctions, itemIndex: number): string {
	const node = ctx.getNode();
	const label = node.typeVersion >= 2 ? 'Appointment' : 'Appointment Key';
	const value = ctx.getNodeParameter('appointmentKey', itemIndex, undefined, {
		extractValue: true,
	});
	const key = canonicalUuid(value);
	if (key !== undefined) return key;
	throw withFix(
		inputError(node, label, itemIndex, UUID_EXPECTED, value),
		node.typeVersion >= 2
			? `Pick the appointment in "${label}" from the list, or give its appointment_key as Get Many returns it.`
			: `Set "${label}" to the appointment_key as Get Many returns it, such as {{ $json.appointment_key }}.`,
	);
}

export function readWebhookKey(ctx: IExecuteFunctions, itemIndex: number): string {
	const node = ctx.getNode();
	const label = node.typeVersion >= 2 ? 'Webhook' : 'Webhook Key';
	const value = ctx.getNodeParameter('webhookKey', itemIndex, '', { extractValue: true });
	return requirePathKey(node, value, label, itemIndex);
}
