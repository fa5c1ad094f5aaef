/**
 * The trigger's parameters, read and checked in one place. Every parameter decides whether an event runs or how
 * (Events, Filters; Dedupe Key and Window: whether a copy is a duplicate; Verify With API: whether and with what
 * data; Simplify: the item's shape), so a value that cannot be read is never replaced by a default: each reader
 * throws a NodeOperationError naming the field as the editor labels it ("Filters › Statuses").
 *
 *   readEvents(ctx): string[]              picked + typed events, at least one
 *   readOptions(ctx): TriggerOptions       { dedupeKey, dedupeWindow, verifyWithApi, simplify }
 *   readFilter(ctx): EventFilter           the Filters (calendars, statuses), checked
 *   readForPublishing(ctx): string[]       every parameter checked, as publishing and n8n's restart need: the
 *                                          events to subscribe
 *   receiverConfig(ctx, node, workflowId): ReceiverConfig   what webhook() needs, read anew for every
 *                                          notification: n8n builds a new Workflow and context per request, so
 *                                          nothing could be reused
 */
import {
	NodeOperationError,
	type IDataObject,
	type IHookFunctions,
	type INode,
	type IWebhookFunctions,
} from 'n8n-workflow';

import { eventList, numberValue, readEventFilter, toBoolean, withoutItem, type EventFilter } from '../shared';
import { DEFAULT_WINDOW, MAX_WINDOW, recentKeysFor, type DedupeMode, type RecentKeys } from './dedupe';

type Ctx = IHookFunctions | IWebhookFunctions;

export interface TriggerOptions {
	dedupeKey: DedupeMode;
	dedupeWindow: number;
	verifyWithApi: boolean;
	simplify: boolean;
}

export interface ReceiverConfig {
	/** Subscribed event names. */
	events: ReadonlySet<string>;
	options: TriggerOptions;
	filter: EventFilter;
	/** Dedupe memory of this workflow + node + mode + dedupe key; undefined when dedupe is off. */
	store?: RecentKeys;
}

/** The Dedupe Key choices as the editor shows them (the node's description uses this list). */
export const DEDUPE_CHOICES = [
	{
		name: 'Event + Appointment Key + Timestamp',
		value: 'eventKeyTimestamp',
		description: 'A redelivery of the same notification is dropped; a later event for the same appointment still runs',
	},
	{
		name: 'Appointment Key',
		value: 'appointmentKey',
		description: "Only the first event of each appointment runs, as long as it is remembered (the spec's literal rule)",
	},
	{ name: 'Off', value: 'off', description: 'Every delivery starts the workflow, redeliveries included' },
] as const satisfies ReadonlyArray<{ name: string; value: DedupeMode; description: string }>;

const DEDUPE_MODES: readonly DedupeMode[] = DEDUPE_CHOICES.map((c) => c.value);


type ReadParameter = (name: string, fallback: unknown) => unknown;

function hasExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (value !== null && typeof value === 'object') return Object.values(value).some(hasExpression);
	return false;
}

/**
 * Reads parameters from the node as saved, asking getNodeParameter() only for a value that holds an expression.
 * In n8n 2.41 every getNodeParameter() call resolves all of the node's parameters against its description, much
 * of what a notification costs; the saved parameters already hold the defaults, which
 * n8n fills in when it builds the workflow, and the checks below are ours anyway.
 */
function savedParameters(ctx: Ctx, node: INode): ReadParameter {
	const n8n = throughN8n(ctx);
	return (name, fallback) => {
		const value = node.parameters[name];
		return value === undefined || hasExpression(value) ? n8n(name, fallback) : value;
	};
}

const LABELS: Record<string, string> = { events: 'Events', otherEvents: 'Other Events', filters: 'Filters', options: 'Options' };

/** n8n's own errors (an expression that fails) name no field: the message says which one it was. */
function throughN8n(ctx: Ctx): ReadParameter {
	return (name, fallback) => {
		try {
			return ctx.getNodeParameter(name, fallback as never);
		} catch (error) {
			throw new NodeOperationError(ctx.getNode(), `The field "${LABELS[name] ?? name}" could not be read: ${(error as Error).message}`, {
				description: (error as { description?: string }).description ?? 'Check the expression in this field.',
			});
		}
	};
}

// `node` when the caller has it: n8n's getNode() deep-copies the node on every call.
export function readEvents(ctx: Ctx, node = ctx.getNode(), read = throughN8n(ctx)): string[] {
	try {
		return eventList(node, read('events', []), read('otherEvents', ''), 0);
	} catch (error) {
		// eventList names the item; a trigger has none.
		throw withoutItem(node, error);
	}
}

export function readOptions(ctx: Ctx, node = ctx.getNode(), read = throughN8n(ctx)): TriggerOptions {
	const options = (read('options', {}) ?? {}) as IDataObject;
	const mode = options.dedupeKey ?? 'eventKeyTimestamp';
	if (!DEDUPE_MODES.includes(mode as DedupeMode)) {
		throw new NodeOperationError(
			node,
			`The field "Options › Dedupe Key" must be one of ${DEDUPE_CHOICES.map((c) => c.name).join(', ')} (got ${JSON.stringify(mode)})`,
			{
				description: `Pick "Dedupe Key" from the list; an expression must give one of their values: ${DEDUPE_CHOICES.map((c) => `${c.value} (${c.name})`).join(', ')}.`,
			},
		);
	}
	try {
		// A window with decimals (the editor's number field allows them) keeps its whole part.
		const window = numberValue(node, options.dedupeWindow, 'Options › Dedupe Window', 0, { min: 1, max: MAX_WINDOW });
		return {
			dedupeKey: mode as DedupeMode,
			dedupeWindow: window === undefined ? DEFAULT_WINDOW : Math.floor(window),
			verifyWithApi: flag(node, options.verifyWithApi, 'Options › Verify With API'),
			simplify: flag(node, options.simplify, 'Options › Simplify'),
		};
	} catch (error) {
		throw withoutItem(node, error);
	}
}

/** A boolean option: off when left out. */
function flag(node: INode, value: unknown, field: string): boolean {
	return value === undefined || value === null || value === '' ? false : toBoolean(node, value, field, 0);
}

export function readFilter(ctx: Ctx, node = ctx.getNode(), read = throughN8n(ctx)): EventFilter {
	return readEventFilter(node, read('filters', {}));
}

/**
 * Publishing (and n8n's restart, which calls checkExists) reads every parameter a delivery reads: one that cannot
 * be read is reported now, not discovered by each event refused.
 */
export function readForPublishing(ctx: IHookFunctions): string[] {
	const node = ctx.getNode();
	const events = readEvents(ctx, node);
	readFilter(ctx, node);
	readOptions(ctx, node);
	return events;
}

/**
 * Test-mode deliveries ("Listen for test event") are remembered apart from production ones, and each Dedupe Key
 * apart from the others (its keys have another form).
 */
function scopeOf(workflowId: string, nodeId: string, mode: string, dedupe: DedupeMode): string {
	return `${workflowId}\n${nodeId}\n${mode === 'manual' ? 'test' : 'production'}\n${dedupe}`;
}

/** Throws the first parameter that cannot be read: the delivery is then not evaluated (receive.ts). */
export function receiverConfig(ctx: IWebhookFunctions, node: INode, workflowId: string): ReceiverConfig {
	const read = savedParameters(ctx, node);
	const events = readEvents(ctx, node, read);
	const filter = readFilter(ctx, node, read);
	const options = readOptions(ctx, node, read);
	return {
		events: new Set(events),
		options,
		filter,
		store:
			options.dedupeKey === 'off'
				? undefined
				: recentKeysFor(scopeOf(workflowId, node.id || node.name, ctx.getMode(), options.dedupeKey), options.dedupeWindow),
	};
}
