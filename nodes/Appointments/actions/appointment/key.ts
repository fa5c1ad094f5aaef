import type { IExecuteFunctions } from 'n8n-workflow';

import { requireUuid } from '../../shared';

/**
 * The appointment an item names, checked to be a UUID before anything is sent, however it was given (version 2's
 * resource locator: from the list, a URL or a key). An error names the field as the node's version labels it.
 */
export function appointmentKeyOf(ctx: IExecuteFunctions, itemIndex: number): string {
	const node = ctx.getNode();
	const label = node.typeVersion >= 2 ? 'Appointment' : 'Appointment Key';
	return requireUuid(node, ctx.getNodeParameter('appointmentKey', itemIndex, undefined, { extractValue: true }), label, itemIndex);
}
