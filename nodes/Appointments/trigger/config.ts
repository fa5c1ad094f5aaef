/**
 * The webhook trigger's parameters, read and checked in one place. Each decides whether or how an event runs, so
 * one that cannot be read is never replaced by a default: the error names the field as the editor labels it.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IHookFunctions,
	type INode,
	type IWebhookFunctions,
} from 'n8n-workflow';

import { choiceError, eventList, numberValue, toBoolean } from '../shared/validation.js';
import { readEventFilter } from '../shared/eventFilter.js';
import { withoutItem } from '../shared/triggerError.js';
import { DEFAULT_WINDOW, MAX_WINDOW, recentKeysFor, type DedupeMode } from './dedupe.js';

/** `store`: the dedupe memory of this workflow, node, mode and Dedupe Key; undefined when dedupe is off. */
export type ReceiverConfig = ReturnType<typeof receiverConfig>;

/** The Dedupe Key choices as the editor shows them (the node's description uses this list). */
export const DEDUPE_CHOICES = [
	{
		name: 'Event + Appointment Key + Timestamp',
		value: 'eventKeyTimestamp',
		description:
			'A redelivery of the same notification is dropped; a later event for the same appointment still runs',
	},
	{
		name: 'Appointment Key',
		value: 'appointmentKey',
		description:
			"Only the first event of each appointment runs, as long as it is remembered (the spec's literal rule)",
	},
	{
		name: 'Off',
		value: 'off',
		description: 'Every delivery starts the workflow, redeliveries included',
	},
] as const satisfies ReadonlyArray<{ name: string; value: DedupeMode; description: string }>;

type ReadParameter = (name: string, fallback: unknown) => unknown;

const LABELS: Record<string, string> = {
	events: 'Events',
	otherEvents: 'Other Events',
	filters: 'Filters',
	options: 'Options',
};

/** n8n's own errors (an expression that fails) name no field: the message says which one it was. */
function throughN8n(ctx: IHookFunctions | IWebhookFunctions): ReadParameter {
	return (name, fallback) => {
		try {
			return ctx.getNodeParameter(name, fallback as never);
		} catch (error) {
			const { description } = error as { description?: string };
			throw new NodeOperationError(
				ctx.getNode(),
				`The field "${LABELS[name] ?? name}" could not be read: ${(error as Error).message}`,
				{ description: description ?? 'Check the expression in this field.' },
			);
		}
	};
}

function hasExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (value !== null && typeof value === 'object') return Object.values(value).some(hasExpression);
	return false;
}

/**
 * The node as saved (n8n filled in the defaults when it built the workflow), through getNodeParameter() only for
 * an expression: in n8n 2.41 each call resolves all of the node's parameters, much of what a notification costs.
 */
function savedParameters(ctx: IWebhookFunctions, node: INode): ReadParameter {
	const n8n = throughN8n(ctx);
	return (name, fallback) => {
		const value = node.parameters[name];
		return value === undefined || hasExpression(value) ? n8n(name, fallback) : value;
	};
}

function readTriggerOptions(node: INode, value: unknown) {
	const options = (value ?? {}) as IDataObject;
	const mode = options.dedupeKey ?? 'eventKeyTimestamp';
	const flag = (v: unknown, field: string) =>
		v === undefined || v === null || v === '' ? false : toBoolean(node, v, field, 0);
	return withoutItem(node, () => {
		if (!DEDUPE_CHOICES.some((c) => c.value === mode))
			throw choiceError(node, 'Options › Dedupe Key', 0, DEDUPE_CHOICES, mode, 'one of these');
		// A window with decimals (the editor's number field allows them) keeps its whole part.
		const window = numberValue(node, options.dedupeWindow, 'Options › Dedupe Window', 0, {
			min: 1,
			max: MAX_WINDOW,
		});
		return {
			dedupeKey: mode as DedupeMode,
			dedupeWindow: window === undefined ? DEFAULT_WINDOW : Math.floor(window),
			verifyWithApi: flag(options.verifyWithApi, 'Options › Verify With API'),
			simplify: flag(options.simplify, 'Options › Simplify'),
		};
	});
}

function readParameters(node: INode, read: ReadParameter) {
	const events = withoutItem(node, () =>
		eventList(node, read('events', []), read('otherEvents', ''), 0),
	);
	const filter = readEventFilter(node, read('filters', {}));
	return { events, filter, options: readTriggerOptions(node, read('options', {})) };
}

/** Publishing and n8n's restart (checkExists) check every parameter a delivery reads, and get the events. */
export function readForPublishing(ctx: IHookFunctions): string[] {
	return readParameters(ctx.getNode(), throughN8n(ctx)).events;
}

/** Read anew for every notification (n8n builds a new workflow per request); throws the first unreadable field. */
export function receiverConfig(ctx: IWebhookFunctions, node: INode, workflowId: string) {
	const config = readParameters(node, savedParameters(ctx, node));
	const { dedupeKey, dedupeWindow } = config.options;
	if (dedupeKey === 'off') return { ...config, store: undefined };
	// Test deliveries are remembered apart from production ones, each Dedupe Key apart (its keys have another form).
	const deliveries = ctx.getMode() === 'manual' ? 'test' : 'production';
	const scope = [workflowId, node.id || node.name, deliveries, dedupeKey].join('\n');
	return { ...config, store: recentKeysFor(scope, dedupeWindow) };
}
