/* eslint-disable @n8n/community-nodes/no-restricted-globals, @typescript-eslint/no-explicit-any -- test code, never shipped: it reads the environment (sizes, seed) and handles arbitrary JSON */
/**
 * The oracle of the property-based bad-input tests (properties.*.test.ts) of the real action node (fast-check):
 * random parameters per item (keys, statuses, dates in many formats and zones, URLs, event lists, filters), 100
 * items per node execution with continue-on-fail, each item's parameters coming from its own JSON through
 * expressions, as in a real workflow.
 *
 * For every item, an oracle written from the spec (not from the node's code) says whether the input is
 *   - valid: the node must send exactly the request the spec allows (method, path, query from the sandbox's log)
 *     and must not fail the item before sending;
 *   - invalid: the item must fail with an error naming the field and the item, and no request may be sent for it;
 *   - open (the spec leaves it to the node, e.g. an un-hyphenated UUID, an RFC 2822 date): either of the two,
 *     but a request must still be exactly right and an error must still name the field.
 * Never an unhandled exception: the run itself must not fail, and every error item must be one of the above.
 * Cases per run: >= 1,000 under `npm test` (the three files together: half the runs, so that npm test stays near
 * 2 minutes), 8 times that under `npm run test:chaos`.
 * fast-check prints the seed and the shrunk counterexample on failure; re-run one with FC_SEED=<seed>.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../helpers/n8n';
import { FULL, TestSandbox, TOKEN, type RequestLogEntry } from './common';

export const ITEMS = 100;
// Not fewer under npm test: the shares checked after a file's runs (below) need this many items to hold every time.
export const RUNS = (n: number) => (FULL ? n * 4 : n);
// Four times the runs: on a loaded 2-core machine one property took close to the default minute.
if (FULL) jest.setTimeout(300_000);
const SEED = process.env.FC_SEED
	? Number(process.env.FC_SEED)
	: Math.floor(Math.random() * 2 ** 31);
// Printed first, so a failure of the shares checked after the runs can be replayed too.
console.log(`property tests: FC_SEED=${SEED} replays this run`);

let sb: TestSandbox;
let cases = 0;
/** How many items of each kind the runs produced, and how many requests the valid ones sent. */
const tally = { valid: 0, invalid: 0, open: 0, sent: 0 };

/** The least share of a file's items of each kind (and of requests sent) that makes its runs worth something. */
export interface Shares {
	valid: number;
	invalid: number;
	open: number;
	sent: number;
}
const SHARES: Shares = { valid: 1 / 4, invalid: 1 / 5, open: 1 / 50, sent: 1 / 4 };

/**
 * A sandbox for the test file (seeded, its appointment keys read) and, at the end, the check that the file's
 * runs looked at `minCases` items with every kind in useful numbers.
 */
export function usePropertySandbox(
	minCases: number,
	shares: Shares = SHARES,
): { sb: TestSandbox; keys: string[] } {
	const suite = { sb: undefined as unknown as TestSandbox, keys: [] as string[] };
	beforeAll(async () => {
		sb = suite.sb = await TestSandbox.start({ seed: 50, seedValue: 21 });
		suite.keys = (await sb.allAppointments()).map((a) => a.appointment_key);
	});
	afterAll(async () => {
		await sb?.close();
		// every run checked its items: the suite really did look at this many cases
		expect(cases).toBeGreaterThanOrEqual(minCases);
		// the generators produce every kind in useful numbers (a generator that only made junk would prove little)
		expect(tally.valid).toBeGreaterThan(cases * shares.valid);
		expect(tally.invalid).toBeGreaterThan(cases * shares.invalid);
		expect(tally.open).toBeGreaterThan(cases * shares.open);
		expect(tally.sent).toBeGreaterThan(cases * shares.sent);
	});
	return suite;
}

// ---------------------------------------------------------------------------------------------------------------
// The oracle's vocabulary

/** What the spec says about one field of one item. */
export type Verdict =
	| { kind: 'omit' } // nothing to send for this field
	| { kind: 'exact'; value: string | string[] } // must be sent exactly so
	| { kind: 'sent'; accept: (sent: string | string[] | undefined) => boolean } // must be sent, something accepted
	| { kind: 'invalid' } // the item must fail naming this field
	| { kind: 'open'; accept: (sent: string | string[] | undefined) => boolean; want?: string }; // either fail naming it, or send something accepted

export interface FieldCheck {
	label: string; // the field's name as the user sees it
	param?: string; // the query parameter it becomes (getAll)
	verdict: Verdict;
}

export const exact = (value: string | string[]): Verdict => ({ kind: 'exact', value });
export const open = (accept: (sent: string | string[] | undefined) => boolean): Verdict => ({
	kind: 'open',
	accept,
});
/** Open, and when sent it must be exactly `want`. */
export const openExactly = (want: string): Verdict => ({
	kind: 'open',
	accept: (sent) => sent === want,
	want,
});
/** The value a date verdict stands for, if it stands for one. */
export const wantOf = (v: Verdict): string | undefined =>
	v.kind === 'exact' ? String(v.value) : v.kind === 'open' ? v.want : undefined;
export const INVALID: Verdict = { kind: 'invalid' };
export const OMIT: Verdict = { kind: 'omit' };

// ---------------------------------------------------------------------------------------------------------------
// Running a batch and checking every item

export interface ItemCase {
	json: Record<string, unknown>;
	fields: FieldCheck[];
	/** Checks an item's output when its request succeeded (after the oracle's request check). */
	verifyOutput?: (output: Array<Record<string, any>>) => void;
}

export interface Expected {
	method: string;
	path: (c: ItemCase) => string | ((path: string) => boolean);
	/** Query params the spec allows besides the checked fields (pagination). */
	extraQuery?: string[];
	/** How many requests one valid item sends (default 1). */
	requestsPerItem?: number;
	/** A GET of this path comes before the checked request (webhook create and delete read the list first). */
	listFirst?: string;
	/**
	 * A GET of the checked request's own path comes first (Cancel reads the appointment before it cancels); one the
	 * read finds already cancelled gets no other request, and its output is that cancelled appointment.
	 */
	readFirst?: boolean;
	/** API failures that are fine for a valid item (e.g. 404 for a well-formed key nobody has). */
	apiErrorAllowed?: (message: string) => boolean;
	/** The service must accept every request the node sends (a 400 means the node sent something malformed). */
	no400?: boolean;
}

function classify(c: ItemCase): 'valid' | 'invalid' | 'open' {
	if (c.fields.some((f) => f.verdict.kind === 'invalid')) return 'invalid';
	if (c.fields.some((f) => f.verdict.kind === 'open')) return 'open';
	return 'valid';
}

function namesField(message: string, labels: string[], index: number): boolean {
	// "Events" and "Other Events" are one list to the user: an error may name either
	const names = labels.includes('Events') ? [...labels, 'Other Events'] : labels;
	return names.some((label) => message.includes(`"${label}"`)) && message.includes(`item ${index}`);
}

const asList = (v: string | string[] | undefined) =>
	v === undefined ? undefined : Array.isArray(v) ? v : [v];

function queryMatches(
	c: ItemCase,
	query: Record<string, string | string[]>,
	extra: string[],
): string | undefined {
	const checked = new Set<string>();
	for (const f of c.fields) {
		if (!f.param) continue;
		checked.add(f.param);
		const sent = query[f.param];
		const v = f.verdict;
		if (v.kind === 'omit' && sent !== undefined)
			return `${f.param} sent (${JSON.stringify(sent)}) though empty`;
		if (v.kind === 'exact' && JSON.stringify(asList(sent)) !== JSON.stringify(asList(v.value)))
			return `${f.param}: sent ${JSON.stringify(sent)}, expected ${JSON.stringify(v.value)}`;
		if ((v.kind === 'open' || v.kind === 'sent') && !v.accept(sent))
			return `${f.param}: sent ${JSON.stringify(sent)}, not acceptable`;
	}
	for (const name of Object.keys(query)) {
		if (!checked.has(name) && !extra.includes(name))
			return `unexpected query parameter ${name}=${JSON.stringify(query[name])}`;
	}
	return undefined;
}

export async function checkBatch(
	parameters: Record<string, unknown>,
	batch: ItemCase[],
	expected: Expected,
): Promise<void> {
	await sb.clearRequests();
	const result = await runNode({
		parameters: parameters as IDataObject,
		credentials: { baseUrl: sb.url, accessToken: TOKEN },
		input: batch.map((c) => c.json as IDataObject),
		continueOnFail: true,
	});
	// never an unhandled exception: the run itself does not fail
	if (result.error)
		throw new Error(`the node run failed instead of failing items: ${result.error.message}`);
	const outputs = new Map<number, Array<Record<string, any>>>();
	for (const item of result.items[0] ?? []) {
		const paired = item.pairedItem as { item: number } | Array<{ item: number }>;
		const index = Array.isArray(paired) ? paired[0].item : paired.item;
		outputs.set(index, [...(outputs.get(index) ?? []), item.json as Record<string, any>]);
	}
	const log: RequestLogEntry[] = await sb.requests();
	let cursor = 0;
	const first = expected.listFirst ? 1 : 0;
	const per = (expected.requestsPerItem ?? 1) + first;
	for (let i = 0; i < batch.length; i++) {
		const c = batch[i];
		const kind = classify(c);
		tally[kind]++;
		const out = outputs.get(i) ?? [];
		const error =
			out.length === 1 && typeof out[0].error === 'string' && Object.keys(out[0]).length <= 2
				? String(out[0].error)
				: undefined;
		const where = `item ${i} ${JSON.stringify(c.json).slice(0, 4000)}`;
		// a refusal may name any field that is invalid, or open (the node may refuse those too)
		const flagged = c.fields
			.filter((f) => f.verdict.kind === 'invalid' || f.verdict.kind === 'open')
			.map((f) => f.label);
		const failedBeforeSending = error !== undefined && /^The field "|^The option "/.test(error);
		if (kind === 'invalid' || (kind === 'open' && failedBeforeSending)) {
			if (!error)
				throw new Error(
					`${where}: expected an error naming ${flagged.join(' or ')}, got output ${JSON.stringify(out).slice(0, 300)}`,
				);
			if (!namesField(error, flagged, i))
				throw new Error(
					`${where}: the error does not name ${flagged.join(' or ')} and item ${i}: ${error}`,
				);
			continue; // and no request: checked by the log walk below (every request belongs to a sent item)
		}
		if (failedBeforeSending) throw new Error(`${where}: valid input refused: ${error}`);
		if (expected.readFirst) {
			const path = expected.path(c);
			const ours = (r: RequestLogEntry | undefined, method: string) =>
				r !== undefined &&
				r.method === method &&
				(typeof path === 'string' ? r.path === path : path(r.path));
			if (!ours(log[cursor], 'GET'))
				throw new Error(
					`${where}: sent ${JSON.stringify(log[cursor])} first, expected a GET of the appointment`,
				);
			cursor++;
			if (!ours(log[cursor], expected.method)) {
				if (error === undefined && out.length === 1 && /^CANCEL/i.test(String(out[0].status)))
					continue;
				throw new Error(
					`${where}: sent only the read, and its output is not a cancelled appointment: ${JSON.stringify(out).slice(0, 300)}`,
				);
			}
		}
		// a request must be next in the log, exactly as the spec allows
		const mine = log.slice(cursor, cursor + per);
		cursor += per;
		if (mine.length < per)
			throw new Error(`${where}: no request was sent (error: ${error ?? 'none'})`);
		if (expected.listFirst && (mine[0].method !== 'GET' || mine[0].path !== expected.listFirst)) {
			throw new Error(
				`${where}: sent ${mine[0].method} ${mine[0].path} first, expected GET ${expected.listFirst}`,
			);
		}
		for (const request of mine.slice(first, first + 1)) {
			const path = expected.path(c);
			const pathOk = typeof path === 'string' ? request.path === path : path(request.path);
			if (request.method !== expected.method || !pathOk)
				throw new Error(
					`${where}: sent ${request.method} ${request.path}, expected ${expected.method} ${typeof path === 'string' ? path : '(pattern)'}`,
				);
			const bad = queryMatches(c, request.query ?? {}, expected.extraQuery ?? []);
			if (bad) throw new Error(`${where}: ${bad}`);
			if (expected.no400 && request.status === 400)
				throw new Error(`${where}: the service refused what the node sent (400)`);
		}
		if (error !== undefined) {
			if (!expected.apiErrorAllowed?.(error))
				throw new Error(`${where}: the request failed: ${error}`);
		} else {
			c.verifyOutput?.(out);
		}
	}
	if (cursor !== log.length) {
		throw new Error(
			`${log.length - cursor} request(s) the valid items do not account for: ${JSON.stringify(log.slice(cursor, cursor + 3))}`,
		);
	}
	cases += batch.length;
	tally.sent += log.length;
}

export const batchOf = <T>(arb: fc.Arbitrary<T>) =>
	fc.array(arb, { minLength: ITEMS, maxLength: ITEMS });
/** Short failure reports: the seed, the path to replay and the first failing item (not the whole 100-item batch). */
function report(details: fc.RunDetails<any>): void {
	if (!details.failed) return;
	const cause =
		details.errorInstance instanceof Error
			? details.errorInstance.message
			: String(details.errorInstance);
	throw new Error(
		`Property failed after ${details.numRuns} runs (seed ${details.seed}, path "${details.counterexamplePath}"; replay with FC_SEED=${details.seed}):\n${cause}`,
	);
}
export const params = {
	numRuns: 0,
	seed: SEED,
	endOnFailure: true,
	asyncReporter: async (d: fc.RunDetails<any>) => report(d),
} as const;

/** An expression that hands the item's value to the node; `{__luxon}` becomes a Luxon DateTime. */
export const dateExpr = (path: string) =>
	`={{ ($json.${path} && $json.${path}.__luxon) ? DateTime.fromISO($json.${path}.__luxon, { setZone: true }) : $json.${path} }}`;
