import type { IExecuteFunctions } from 'n8n-workflow';

import { canonicalUuid, inputError, requireUuid, withFix } from '../../shared';

/**
 * The appointment an item names, checked to be a UUID before anything is sent, however it was given (version 2's
 * resource locator: from the list, a URL or a key). An error names the field as the node's version labels it.
 */
export function appointmentKeyOf(ctx: IExecuteFunctions, itemIndex: number): string {
	const node = ctx.getNode();
	const label = node.typeVersion >= 2 ? 'Appointment' : 'Appointment Key';
	const value = ctx.getNodeParameter('appointmentKey', itemIndex, undefined, { extractValue: true });
	if (canonicalUuid(value) !== undefined) return requireUuid(node, value, label, itemIndex);
	throw withFix(
		inputError(node, label, itemIndex, 'a UUID such as 3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e', value),
		node.typeVersion >= 2
			? `Pick the appointment in "${label}" from the list, or give its appointment_key as Get Many returns it.`
			: `Set "${label}" to the appointment_key as Get Many returns it, such as {{ $json.appointment_key }}.`,
	);
}
