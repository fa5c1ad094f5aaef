/** Options of the sandbox (start-up and run-time), their defaults and their validation. */
import { z } from 'zod/v4';

import { isValidTimeZone, type DstWallClock } from './dateTimes';
import { fieldErrorMap } from './vocabulary';

export type Pagination = 'page' | 'cursor' | 'none';
export type MutationResponse = 'body' | 'empty';
export type NextLinks = 'absolute' | 'relative';
/** The query of `next`/`previous` links: the request's own order, or sorted as DRF's `replace_query_param` writes it. */
export type LinkQueryOrder = 'request' | 'sorted';
export type WebhookList = 'paginated' | 'array';
/** What a DELETE of an already cancelled appointment does (see sandbox/README.md). */
export type RepeatCancel = 'idempotent' | 'email-again' | 'not-found';
/** A reschedule onto a start another active appointment of the calendar takes: accepted (spec rule 2), or refused. */
export type TakenSlot = 'allow' | 'conflict' | 'bad-request';

export interface SandboxOptions {
	port?: number;
	host?: string;
	/** Port of the local mail sink (SMTP, on `host`); 0 picks a free one. Default: no SMTP server. */
	smtpPort?: number;
	/** Full-access API tokens. Default: one random token (see the returned `tokens`). */
	tokens?: string[];
	/** Appointments only: every /webhooks/ endpoint answers 403. */
	restrictedTokens?: string[];
	/** Token for /__sandbox/. Default: a random token (see the returned `adminToken`). */
	adminToken?: string;
	/** Number of seed appointments (default 300). */
	seed?: number;
	/** Seed of the deterministic generator (default 1). */
	seedValue?: number;
	/** ISO datetime used as "now" for the seed (default: the current time at start/reset). */
	now?: string;
	timeZone?: string;
	/** Offset-less filter times the account zone skips or repeats: read as zoneinfo does (default), earlier, later, or refused. */
	dstWallClock?: DstWallClock;
	pagination?: Pagination;
	mutationResponse?: MutationResponse;
	nextLinks?: NextLinks;
	nextOrigin?: string;
	linkQueryOrder?: LinkQueryOrder;
	webhookList?: WebhookList;
	/** Page size when the request has no page_size (default 50, 1..500). */
	pageSize?: number;
	retrySchedule?: number[];
	deliveryTimeoutMs?: number;
	duplicateDelivery?: boolean;
	/** Share (0..1) of deliveries whose first answer is dropped: received, then retried as if it failed. Default 0. */
	deliveryFailRate?: number;
	shuffleDelivery?: boolean;
	/** Events queued within this window are shuffled together (shuffleDelivery only). Default 100 ms. */
	shuffleWindowMs?: number;
	/** Attempts in flight at once, over all webhooks. Default 64. */
	deliveryConcurrency?: number;
	/** Sandbox-only escape hatch: accept http:// callback URLs (default false, as the spec demands https). */
	allowInsecureCallbacks?: boolean;
	tls?: { cert: string; key: string };
	ca?: string | string[];
	latencyMs?: number;
	/** A DELETE of an already cancelled appointment: idempotent (default), e-mails again, or answers 404. */
	repeatCancel?: RepeatCancel;
	/** A reschedule onto a taken slot: accepted (default), 409 `{detail}` or 400 `{start_date: [...]}` (see README). */
	takenSlot?: TakenSlot;
	/** How long an appointment takes its slot, for `takenSlot` (default 30 minutes). */
	slotMinutes?: number;
	/** A DELETE cancels and then removes the record: the event carries its last data, a later GET answers 404. Default false. */
	cancelRemoves?: boolean;
	/** Read-after-write lag: for this long after its creation a GET of an appointment answers 404 and lists omit it. Default 0. */
	readLagMs?: number;
	/** Upper bound of the request log in entries (oldest entries dropped). Default 100000. */
	maxLoggedRequests?: number;
	/** Upper bound of the request log in bytes (approximate size in memory; oldest dropped). Default 32 MiB. */
	maxLoggedBytes?: number;
	/** How many messages the mailbox keeps (the newest). Default 500. */
	maxMailboxMessages?: number;
}

/** The options that can be read and changed at run time through /__sandbox/config/. */
export interface RuntimeConfig {
	timeZone: string;
	dstWallClock: DstWallClock;
	pagination: Pagination;
	mutationResponse: MutationResponse;
	nextLinks: NextLinks;
	nextOrigin: string | null;
	linkQueryOrder: LinkQueryOrder;
	webhookList: WebhookList;
	pageSize: number;
	retrySchedule: number[];
	deliveryTimeoutMs: number;
	duplicateDelivery: boolean;
	deliveryFailRate: number;
	shuffleDelivery: boolean;
	shuffleWindowMs: number;
	deliveryConcurrency: number;
	allowInsecureCallbacks: boolean;
	latencyMs: number;
	repeatCancel: RepeatCancel;
	takenSlot: TakenSlot;
	slotMinutes: number;
	cancelRemoves: boolean;
	readLagMs: number;
	ca: string[];
}

const zone = z
	.string()
	.refine(isValidTimeZone, { message: 'Not a valid IANA time zone (e.g. "America/Santiago").' });
const origin = z.string().refine(
	(s) => {
		try {
			const u = new URL(s);
			return (
				(u.protocol === 'http:' || u.protocol === 'https:') && u.origin === s.replace(/\/$/, '')
			);
		} catch {
			return false;
		}
	},
	{ message: 'Expected an origin such as "http://127.0.0.1:8787".' },
);
const ms = z.number().int().min(0).max(3_600_000);

export const runtimeConfigPatch = z
	.object({
		timeZone: zone,
		dstWallClock: z.enum(['zoneinfo', 'earlier', 'later', 'refuse']),
		pagination: z.enum(['page', 'cursor', 'none']),
		mutationResponse: z.enum(['body', 'empty']),
		nextLinks: z.enum(['absolute', 'relative']),
		nextOrigin: origin.nullable(),
		linkQueryOrder: z.enum(['request', 'sorted']),
		webhookList: z.enum(['paginated', 'array']),
		pageSize: z.number().int().min(1).max(500),
		retrySchedule: z.array(ms).max(50),
		deliveryTimeoutMs: z.number().int().min(1).max(600_000),
		duplicateDelivery: z.boolean(),
		deliveryFailRate: z.number().min(0).max(1),
		shuffleDelivery: z.boolean(),
		shuffleWindowMs: z.number().int().min(0).max(60_000),
		deliveryConcurrency: z.number().int().min(1).max(1024),
		allowInsecureCallbacks: z.boolean(),
		latencyMs: ms,
		repeatCancel: z.enum(['idempotent', 'email-again', 'not-found']),
		takenSlot: z.enum(['allow', 'conflict', 'bad-request']),
		slotMinutes: z.number().int().min(1).max(1440),
		cancelRemoves: z.boolean(),
		readLagMs: ms,
		ca: z.union([z.string(), z.array(z.string())]),
		tokens: z.array(z.string().min(1)).min(1),
		restrictedTokens: z.array(z.string().min(1)),
	})
	.partial()
	.strict();

export type RuntimeConfigPatch = z.infer<typeof runtimeConfigPatch>;

export function caList(ca: string | string[] | undefined): string[] {
	if (ca === undefined) return [];
	return (Array.isArray(ca) ? ca : [ca]).filter((c) => c.trim() !== '');
}

export function initialConfig(o: SandboxOptions): RuntimeConfig {
	const cfg: RuntimeConfig = {
		timeZone: o.timeZone ?? 'America/Santiago',
		dstWallClock: o.dstWallClock ?? 'zoneinfo',
		pagination: o.pagination ?? 'page',
		mutationResponse: o.mutationResponse ?? 'body',
		nextLinks: o.nextLinks ?? 'absolute',
		nextOrigin: o.nextOrigin ?? null,
		linkQueryOrder: o.linkQueryOrder ?? 'request',
		webhookList: o.webhookList ?? 'paginated',
		pageSize: o.pageSize ?? 50,
		retrySchedule: o.retrySchedule ?? [500, 1000, 2000, 4000, 8000],
		deliveryTimeoutMs: o.deliveryTimeoutMs ?? 10000,
		duplicateDelivery: o.duplicateDelivery ?? false,
		deliveryFailRate: o.deliveryFailRate ?? 0,
		shuffleDelivery: o.shuffleDelivery ?? false,
		shuffleWindowMs: o.shuffleWindowMs ?? 100,
		deliveryConcurrency: o.deliveryConcurrency ?? 64,
		allowInsecureCallbacks: o.allowInsecureCallbacks ?? false,
		latencyMs: o.latencyMs ?? 0,
		repeatCancel: o.repeatCancel ?? 'idempotent',
		takenSlot: o.takenSlot ?? 'allow',
		slotMinutes: o.slotMinutes ?? 30,
		cancelRemoves: o.cancelRemoves ?? false,
		readLagMs: o.readLagMs ?? 0,
		ca: caList(o.ca),
	};
	const { ca, ...rest } = cfg;
	const parsed = runtimeConfigPatch.safeParse({ ...rest, ca });
	if (!parsed.success) {
		throw new Error(`Invalid sandbox options: ${formatZodIssues(parsed.error.issues)}`);
	}
	return cfg;
}

/** DRF-style field map from zod issues: `{"a.b": ["message"]}`. */
export function zodFieldErrors(
	issues: ReadonlyArray<{ path: PropertyKey[]; message: string; code?: string; keys?: string[] }>,
): Record<string, string[]> {
	const out = fieldErrorMap();
	for (const issue of issues) {
		if (issue.code === 'unrecognized_keys' && issue.keys) {
			const prefix = issue.path.map(String).join('.');
			for (const k of issue.keys)
				(out[prefix ? `${prefix}.${k}` : k] ??= []).push('Unknown field.');
			continue;
		}
		const key = issue.path.length ? issue.path.map(String).join('.') : 'non_field_errors';
		(out[key] ??= []).push(issue.message);
	}
	return out;
}

export function formatZodIssues(
	issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
): string {
	return Object.entries(zodFieldErrors(issues))
		.map(([k, v]) => `${k}: ${v.join(' ')}`)
		.join('; ');
}
