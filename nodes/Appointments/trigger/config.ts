/**
 * The trigger's parameters, read and checked in one place.
 *
 *   readEvents(ctx): string[]              picked + typed events, at least one (NodeOperationError otherwise)
 *   readOptions(ctx): TriggerOptions       { dedupeKey, dedupeWindow, verifyWithApi, simplify }
 *   receiverConfig(ctx): ReceiverConfig    what webhook() needs, read anew for every notification: n8n builds a
 *                                          new Workflow and context per request, so nothing could be reused
 */
import {
	NodeOperationError,
	type IDataObject,
	type IHookFunctions,
	type IWebhookFunctions,
} from 'n8n-workflow';

import { eventList } from '../shared';
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
	/** Dedupe memory of this workflow + node + mode + dedupe key; undefined when dedupe is off. */
	store?: RecentKeys;
	/** Log metadata naming the workflow and node. */
	where: { workflowId: string; node: string };
}

const DEDUPE_MODES: readonly DedupeMode[] = ['eventKeyTimestamp', 'appointmentKey', 'off'];

// `node` when the caller has it: n8n's getNode() deep-copies the node on every call.
export function readEvents(ctx: Ctx, node = ctx.getNode()): string[] {
	try {
		return eventList(node, ctx.getNodeParameter('events', []), ctx.getNodeParameter('otherEvents', ''), 0);
	} catch (error) {
		// eventList names the item; a trigger has none.
		throw new NodeOperationError(node, (error as Error).message.replace(' (item 0)', ''));
	}
}

export function readOptions(ctx: Ctx): TriggerOptions {
	const options = (ctx.getNodeParameter('options', {}) ?? {}) as IDataObject;
	const mode = options.dedupeKey ?? 'eventKeyTimestamp';
	if (!DEDUPE_MODES.includes(mode as DedupeMode)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The option "Dedupe Key" must be one of ${DEDUPE_MODES.join(', ')} (got ${JSON.stringify(mode)})`,
		);
	}
	return {
		dedupeKey: mode as DedupeMode,
		dedupeWindow: clampWindow(options.dedupeWindow ?? undefined),
		verifyWithApi: options.verifyWithApi === true,
		simplify: options.simplify === true,
	};
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
	const workflowId = String(ctx.getWorkflow().id ?? '');
	let events: string[] = [];
	let eventsProblem: string | undefined;
	try {
		events = readEvents(ctx, node);
	} catch (error) {
		eventsProblem = (error as Error).message;
	}
	let options: TriggerOptions;
	try {
		options = readOptions(ctx);
	} catch {
		options = { dedupeKey: 'eventKeyTimestamp', dedupeWindow: clampWindow(undefined), verifyWithApi: false, simplify: false };
	}
	return {
		events: new Set(events),
		eventsProblem,
		options,
		store:
			options.dedupeKey === 'off'
				? undefined
				: recentKeysFor(scopeOf(workflowId, node.id || node.name, ctx.getMode(), options.dedupeKey), options.dedupeWindow),
		where: { workflowId, node: node.name },
	};
}
