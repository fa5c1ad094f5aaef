import { NodeOperationError, type INode } from 'n8n-workflow';

/** Runs an item's check for a trigger, which has no item: its error's message and fix without "(item 0)". */
export function withoutItem<T>(node: INode, check: () => T): T {
	try {
		return check();
	} catch (error) {
		const cleaned = (text: string | undefined | null) =>
			text?.replace(/ \(item 0\)| for item 0/g, '');
		throw new NodeOperationError(node, cleaned((error as Error).message) ?? '', {
			description: cleaned((error as NodeOperationError).description) ?? undefined,
		});
	}
}
