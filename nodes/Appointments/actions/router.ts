/**
 * The item loop of the Appointments node: every item checked before anything is sent (prepareAll), the prepared
 * requests run in input order, Concurrency at a time (runAll), the output paired to its input (pairedOutput).
 */
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
} from 'n8n-workflow';

import { numberValue, resolveZone } from '../shared/validation.js';
import type { RequestPolicy } from '../transport/http/credentialInfo.js';
import * as appointment from './appointment/index.js';
import { OPTION_RULES } from './common.descriptions.js';
import { remembered } from './reruns.js';
import type { ItemContext, PreparedRun, PrepareOperation } from './types.js';
import * as webhook from './webhook/index.js';

/** Each operation's prepare by "resource:operation"; a Map, so a name such as "constructor" finds none. */
const PREPARES = new Map(
	Object.entries({ appointment: appointment.operations, webhook: webhook.operations }).flatMap(
		([resource, operations]) =>
			Object.entries(operations).map(([name, op]) => [`${resource}:${name}`, op.prepare] as const),
	),
);

/** Every operation but these reads is a write: from version 4 on, a re-run returns its completed result (reruns.ts). */
const READS = ['getAll', 'get', 'findFreeTimes'];

/** Per input item what it came to, once it did: its data, or with Continue On Fail its error. */
type Results = Array<{ data: IDataObject | IDataObject[] } | { error: Error } | undefined>;

/**
 * The item's Options, from version 3 on with its Advanced settings (version 3 only moved them). From version 4 on
 * Retry On Fail is the one retry setting: the node itself only waits out a `Retry-After` (within the default 5
 * attempts and 60 s) and checks what a lost answer did (`leaveToRetryOnFail`); any other failure fails the item.
 */
function readOptions(ctx: IExecuteFunctions, itemIndex: number, version: number): IDataObject {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	if (version < 3) return options;
	return { ...options, ...(ctx.getNodeParameter('advanced', itemIndex, {}) as IDataObject) };
}

function readOption(
	ctx: IExecuteFunctions,
	options: IDataObject,
	name: keyof typeof OPTION_RULES,
	itemIndex: number,
): number | undefined {
	const rule = OPTION_RULES[name];
	return numberValue(ctx.getNode(), options[name], rule.label, itemIndex, rule);
}

function itemContext(ctx: IExecuteFunctions, itemIndex: number, version: number): ItemContext {
	const options = readOptions(ctx, itemIndex, version);
	const option = (name: keyof typeof OPTION_RULES) => readOption(ctx, options, name, itemIndex);
	const maxAttempts = version >= 4 ? undefined : option('maxAttempts');
	const maxRetryWait = version >= 4 ? undefined : option('maxRetryWaitSeconds');
	const timeout = option('timeoutSeconds');
	const policy: Partial<RequestPolicy> = version >= 4 ? { leaveToRetryOnFail: true } : {};
	if (maxAttempts !== undefined) policy.maxAttempts = maxAttempts;
	if (maxRetryWait !== undefined) policy.maxWaitMs = maxRetryWait * 1000;
	if (timeout !== undefined) policy.timeoutMs = timeout * 1000;
	return {
		itemIndex,
		options,
		policy,
		zone: () => resolveZone(ctx.getNode(), options.timeZone, ctx.getTimezone(), itemIndex),
	};
}

function toError(error: unknown): Error {
	return error instanceof Error ? error : new Error(String(error));
}

/** Every item's parameters read and checked before anything is sent: a bad item fails the node at once, or with Continue On Fail becomes its `{ error }`. */
function prepareAll(
	ctx: IExecuteFunctions,
	prepare: PrepareOperation,
	version: number,
	results: Results,
): Array<PreparedRun | undefined> {
	const continueOnFail = ctx.continueOnFail();
	const runs: Array<PreparedRun | undefined> = new Array(results.length);
	for (let i = 0; i < results.length; i++) {
		try {
			runs[i] = prepare.call(ctx, itemContext(ctx, i, version));
		} catch (error) {
			const failure = toError(error);
			if (continueOnFail) results[i] = { error: failure };
			else
				throw failure instanceof NodeOperationError
					? failure
					: new NodeOperationError(ctx.getNode(), failure, { itemIndex: i });
		}
	}
	return runs;
}

/**
 * The prepared items run in input order, `concurrency` workers at a time. Without Continue On Fail no item starts
 * after a failure, and the first failing item's error is thrown once those in flight have settled.
 */
async function runAll(
	ctx: IExecuteFunctions,
	runs: Array<PreparedRun | undefined>,
	concurrency: number,
	results: Results,
): Promise<void> {
	const continueOnFail = ctx.continueOnFail();
	const pending = runs.flatMap((run, index) => (run ? [{ run, index }] : []));
	let next = 0;
	let failed = false;
	const worker = async (): Promise<void> => {
		while (next < pending.length && !failed) {
			const { run, index } = pending[next++];
			try {
				results[index] = { data: await run() };
			} catch (error) {
				results[index] = { error: toError(error) };
				if (!continueOnFail) failed = true;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, pending.length) }, worker));
	if (!failed) return;
	const index = results.findIndex((result) => result !== undefined && 'error' in result);
	const error = (results[index] as { error: Error }).error;
	if (error instanceof NodeApiError || error instanceof NodeOperationError) throw error;
	throw new NodeOperationError(ctx.getNode(), error, { itemIndex: index });
}

function pairedOutput(ctx: IExecuteFunctions, results: Results): INodeExecutionData[] {
	// flatMap, not push(...spread): one Get Many item can yield hundreds of thousands of records, more arguments
	// than a call can take ("Maximum call stack size exceeded").
	return results.flatMap((result, item) => {
		if (!result) return [];
		const json = 'error' in result ? { error: result.error.message } : result.data;
		const data = ctx.helpers.returnJsonArray(json);
		return ctx.helpers.constructExecutionMetaData(data, { itemData: { item } });
	});
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const prepare = PREPARES.get(`${resource}:${operation}`);
	if (!prepare)
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	const version = this.getNode().typeVersion;
	const concurrency =
		readOption(this, readOptions(this, 0, version), 'concurrency', 0) ??
		OPTION_RULES.concurrency.fallback;
	const results: Results = new Array(this.getInputData().length);
	const prepared = prepareAll(this, prepare, version, results);
	const runs =
		version >= 4 && !READS.includes(operation)
			? prepared.map((run, i) => run && remembered(this, run, i))
			: prepared;
	await runAll(this, runs, concurrency, results);
	return [pairedOutput(this, results)];
}
