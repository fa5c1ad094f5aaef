import { NodeOperationError, type INode } from 'n8n-workflow';

/** A parameter error of a trigger, which has no item: the message and fix of an item's check without "(item 0)". */
export function withoutItem(node: INode, error: unknown): NodeOperationError {
	const cleaned = (text: string | undefined | null) => text?.replace(/ \(item 0\)| for item 0/g, '');
	return new NodeOperationError(node, cleaned((error as Error).message) ?? '', {
		description: cleaned((error as NodeOperationError).description) ?? undefined,
	});
}
