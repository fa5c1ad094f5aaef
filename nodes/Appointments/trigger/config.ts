/**
 * The trigger's parameters, read and checked in one place.
 *
 *   readEvents(ctx): string[]              picked + typed events, at least one (NodeOperationError otherwise)
 *   readOptions(ctx): TriggerOptions       { dedupeKey, dedupeWindow, verifyWithApi, simplify }
 *   receiverConfig(ctx): ReceiverConfig    what webhook() needs, resolved once per n8n Workflow instance
 *
 * webhook() is on the hot path: resolving three parameters through n8n costs several times a JSON.parse of an
 * envelope, so receiverConfig() keeps the result in a WeakMap keyed by the node's static-data object, which n8n
 * creates once per Workflow instance and node (a Workflow's parameters never change during its life; n8n builds
 * a new instance when a workflow is saved or re-activated), and in a second WeakMap keyed by the context object
 * itself (one node, one mode). Where n8n builds a Workflow per request, the entry is simply rebuilt and
 * garbage-collected with it.
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
	/** Dedupe memory of this workflow + node + mode; undefined when dedupe is off. */
	store?: RecentKeys;
	nodeName: string;
	workflowId: string;
	/** Log metadata naming the workflow and node. */
	where: { workflowId: string; node: string };
}

const DEDUPE_MODES: readonly DedupeMode[] = ['eventKeyTimestamp', 'appointmentKey', 'off'];

export function readEvents(ctx: Ctx): string[] {
	const node = ctx.getNode();
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

/** Test-mode deliveries ("Listen for test event") are remembered apart from production ones. */
function scopeOf(workflowId: string, nodeId: string, mode: string): string {
	return `${workflowId}\n${nodeId}\n${mode === 'manual' ? 'test' : 'production'}`;
}

const cache = new WeakMap<object, Map<string, ReceiverConfig>>();
// A context object serves one node in one mode: the cheapest lookup when the caller reuses it.
const byContext = new WeakMap<object, ReceiverConfig>();

export function receiverConfig(ctx: IWebhookFunctions): ReceiverConfig {
	const known = byContext.get(ctx);
	if (known !== undefined) return known;
	const config = configFor(ctx);
	byContext.set(ctx, config);
	return config;
}

function configFor(ctx: IWebhookFunctions): ReceiverConfig {
	const anchor = ctx.getWorkflowStaticData('node');
	const mode = ctx.getMode();
	let perMode = cache.get(anchor);
	const cached = perMode?.get(mode);
	if (cached !== undefined) return cached;

	const node = ctx.getNode();
	const workflowId = String(ctx.getWorkflow().id ?? '');
	let events: string[] = [];
	let eventsProblem: string | undefined;
	try {
		events = readEvents(ctx);
	} catch (error) {
		eventsProblem = (error as Error).message;
	}
	let options: TriggerOptions;
	try {
		options = readOptions(ctx);
	} catch {
		options = { dedupeKey: 'eventKeyTimestamp', dedupeWindow: clampWindow(undefined), verifyWithApi: false, simplify: false };
	}
	const config: ReceiverConfig = {
		events: new Set(events),
		eventsProblem,
		options,
		store:
			options.dedupeKey === 'off'
				? undefined
				: recentKeysFor(scopeOf(workflowId, node.id || node.name, mode), options.dedupeWindow),
		nodeName: node.name,
		workflowId,
		where: { workflowId, node: node.name },
	};
	if (perMode === undefined) {
		perMode = new Map();
		cache.set(anchor, perMode);
	}
	perMode.set(mode, config);
	return config;
}
