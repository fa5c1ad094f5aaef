/**
 * The trigger's parameters, read and checked in one place.
 *
 *   readEvents(ctx): string[]              picked + typed events, at least one (NodeOperationError otherwise)
 *   readOptions(ctx): TriggerOptions       { dedupeKey, dedupeWindow, verifyWithApi, simplify }
 *   readFilter(ctx): EventFilter           the Filters (calendars, statuses), checked
 *   receiverConfig(ctx): ReceiverConfig    what webhook() needs, read anew for every notification: n8n builds a
 *                                          new Workflow and context per request, so nothing could be reused
 */
import {
	NodeOperationError,
	type IDataObject,
	type IHookFunctions,
	type INode,
	type IWebhookFunctions,
} from 'n8n-workflow';

import { eventList, readEventFilter, withoutItem, type EventFilter } from '../shared';
import { clampWindow, recentKeysFor, type DedupeMode, type RecentKeys } from './dedupe';

type Ctx = IHookFunctions | IWebhookFunctions;

export interface TriggerOptions {
	dedupeKey: DedupeMode;
	dedupeWindow: number;
	verifyWithApi: boolean;
	simplify: boolean;
}

export interface ReceiverConfig {
	/** Subscribed event names; empty when the parameters are invalid (then every event is ignored). */
	events: ReadonlySet<string>;
	/** Why `events` is empty, for the log. */
	eventsProblem?: string;
	options: TriggerOptions;
	/** Filters; undefined when they are invalid (then every event is ignored: activation reports why). */
	filter?: EventFilter;
	/** Dedupe memory of this workflow + node + mode + dedupe key; undefined when dedupe is off. */
	store?: RecentKeys;
	/** Log metadata naming the workflow and node. */
	where: { workflowId: string; node: string };
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
 * In n8n 2.41 every getNodeParameter() call resolves all of the node's parameters against its description (a
 * fifth of the CPU a notification costs, for three calls); the saved parameters already hold the defaults, which
 * n8n fills in when it builds the workflow, and the checks below are ours anyway.
 */
function savedParameters(ctx: Ctx, node: INode): ReadParameter {
	const n8n = throughN8n(ctx);
	return (name, fallback) => {
		const value = node.parameters[name];
		return value === undefined || hasExpression(value) ? n8n(name, fallback) : value;
	};
}

function throughN8n(ctx: Ctx): ReadParameter {
	return (name, fallback) => ctx.getNodeParameter(name, fallback as never);
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

export function readOptions(ctx: Ctx, read = throughN8n(ctx)): TriggerOptions {
	const options = (read('options', {}) ?? {}) as IDataObject;
	const mode = options.dedupeKey ?? 'eventKeyTimestamp';
	if (!DEDUPE_MODES.includes(mode as DedupeMode)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The option "Dedupe Key" must be one of ${DEDUPE_CHOICES.map((c) => c.name).join(', ')} (got ${JSON.stringify(mode)})`,
			{
				description: `Pick "Dedupe Key" from the list; an expression must give one of their values: ${DEDUPE_CHOICES.map((c) => `${c.value} (${c.name})`).join(', ')}.`,
			},
		);
	}
	return {
		dedupeKey: mode as DedupeMode,
		dedupeWindow: clampWindow(options.dedupeWindow ?? undefined),
		verifyWithApi: options.verifyWithApi === true,
		simplify: options.simplify === true,
	};
}

export function readFilter(ctx: Ctx, node = ctx.getNode(), read = throughN8n(ctx)): EventFilter {
	return readEventFilter(node, read('filters', {}));
}

/**
 * Test-mode deliveries ("Listen for test event") are remembered apart from production ones, and each Dedupe Key
 * apart from the others (its keys have another form).
 */
function scopeOf(workflowId: string, nodeId: string, mode: string, dedupe: DedupeMode): string {
	return `${workflowId}\n${nodeId}\n${mode === 'manual' ? 'test' : 'production'}\n${dedupe}`;
}

export function receiverConfig(ctx: IWebhookFunctions): ReceiverConfig {
	const node = ctx.getNode();
	const read = savedParameters(ctx, node);
	const workflowId = String(ctx.getWorkflow().id ?? '');
	let events: string[] = [];
	let eventsProblem: string | undefined;
	try {
		events = readEvents(ctx, node, read);
	} catch (error) {
		eventsProblem = (error as Error).message;
	}
	let filter: EventFilter | undefined;
	try {
		filter = readFilter(ctx, node, read);
	} catch (error) {
		eventsProblem = (error as Error).message;
	}
	let options: TriggerOptions;
	try {
		options = readOptions(ctx, read);
	} catch (error) {
		// Publishing does not read the options (a workflow saved with such a value has always run), so refusing the
		// delivery would only make the service resend it for ever: run with the defaults, and say so in n8n's log.
		ctx.logger.warn(`Appointments Trigger: ${(error as Error).message}; this delivery uses the default options`, {
			workflowId,
			node: node.name,
		});
		options = { dedupeKey: 'eventKeyTimestamp', dedupeWindow: clampWindow(undefined), verifyWithApi: false, simplify: false };
	}
	return {
		events: new Set(events),
		eventsProblem,
		options,
		filter,
		store:
			options.dedupeKey === 'off'
				? undefined
				: recentKeysFor(scopeOf(workflowId, node.id || node.name, ctx.getMode(), options.dedupeKey), options.dedupeWindow),
		where: { workflowId, node: node.name },
	};
}
