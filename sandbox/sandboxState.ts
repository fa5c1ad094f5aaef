/** What every plugin of the sandbox shares (decorated on the fastify instance as `sandbox`). */
import crypto from 'node:crypto';

import { formatHuman, formatInstantMs, parseDateTime } from './dateTimes';
import { DeliveryEngine, type Notification } from './deliveries';
import { Faults } from './faults';
import { Mailbox, cancellationMessage } from './mailbox';
import { initialConfig, type RuntimeConfig, type SandboxOptions } from './options';
import { rng, seedAppointments, world, type Rand, type SeedWorld } from './seed';
import { AppointmentStore } from './store';
import type { Appointment, EventName } from './vocabulary';

export interface Webhook {
	webhook_key: string;
	url: string;
	events: string[];
	created_at: string;
}

export interface Email {
	appointment_key: string;
	to: string;
	type: string;
	at: string;
}

export interface RequestLogEntry {
	method: string;
	path: string;
	query: Record<string, string | string[]>;
	/** Set instead of `query` for a request refused for its token: the length of the query string it had. */
	query_omitted?: number;
	status: number | null;
	at: string;
	authorized: boolean;
	fault: number | null;
}

const NOTHING_HIDDEN: ReadonlySet<string> = new Set();

/** Default byte budget of the request log (its entries' approximate size in memory). */
export const DEFAULT_LOG_BYTES = 32 * 1024 * 1024;

/**
 * The API request log, capped by count and by bytes (oldest entries dropped first), so that no stream of requests,
 * however large their paths and queries, can exhaust the sandbox's memory.
 */
export class RequestLog {
	entries: RequestLogEntry[] = [];
	private sizes: number[] = [];
	private bytes = 0;

	constructor(
		private readonly maxEntries: number,
		private readonly maxBytes: number,
	) {}

	push(entry: RequestLogEntry) {
		let size = 160 + entry.path.length * 2;
		for (const k in entry.query) {
			const v = entry.query[k];
			size +=
				48 +
				k.length * 2 +
				(Array.isArray(v) ? v.reduce((n, x) => n + 32 + x.length * 2, 0) : v.length * 2);
		}
		this.entries.push(entry);
		this.sizes.push(size);
		this.bytes += size;
		if (this.entries.length <= this.maxEntries && this.bytes <= this.maxBytes) return;
		// Over a limit: drop the oldest tenth at once (one splice instead of one per request).
		let drop = 0;
		while (
			drop < this.entries.length - 1 &&
			(this.entries.length - drop > this.maxEntries * 0.9 || this.bytes > this.maxBytes * 0.9)
		) {
			this.bytes -= this.sizes[drop];
			drop++;
		}
		this.entries.splice(0, drop);
		this.sizes.splice(0, drop);
	}

	clear() {
		this.entries = [];
		this.sizes = [];
		this.bytes = 0;
	}
}

export class SandboxState {
	readonly startCfg: RuntimeConfig;
	cfg: RuntimeConfig;
	tokens: Set<string>;
	restricted: Set<string>;
	readonly startTokens: string[];
	readonly startRestricted: string[];
	readonly adminToken: string;
	readonly store: AppointmentStore;
	readonly webhooks = new Map<string, Webhook>();
	emails: Email[] = [];
	/** What the mail sink received and the service's own e-mails (cancellations), for the Mailbox page. */
	readonly mailbox: Mailbox;
	/** Where the mail sink listens, once started (for the Mailbox page). */
	smtpHost = '127.0.0.1';
	smtpPort: number | undefined;
	readonly requests: RequestLog;
	readonly faults = new Faults();
	readonly deliveries: DeliveryEngine;
	seedWorld!: SeedWorld;
	rand!: Rand;
	/** When each appointment created since the reset was written, while `readLagMs` may still hide it. */
	private readonly written = new Map<string, number>();

	constructor(readonly options: SandboxOptions) {
		this.startCfg = initialConfig(options);
		this.cfg = this.freshConfig();
		this.startTokens = options.tokens?.length
			? [...options.tokens]
			: [`sbx_${crypto.randomBytes(18).toString('base64url')}`];
		this.startRestricted = [...(options.restrictedTokens ?? [])];
		this.tokens = new Set(this.startTokens);
		this.restricted = new Set(this.startRestricted);
		this.adminToken =
			options.adminToken ?? `sbx_admin_${crypto.randomBytes(18).toString('base64url')}`;
		const kept = options.maxMailboxMessages;
		if (kept !== undefined && (!Number.isInteger(kept) || kept < 1))
			throw new Error('Invalid sandbox option maxMailboxMessages: expected an integer >= 1');
		this.mailbox = new Mailbox(kept);
		this.requests = new RequestLog(
			options.maxLoggedRequests ?? 100_000,
			options.maxLoggedBytes ?? DEFAULT_LOG_BYTES,
		);
		this.store = new AppointmentStore(this.cfg.timeZone);
		this.deliveries = new DeliveryEngine(() => this.cfg);
		if (options.seed !== undefined && (!Number.isInteger(options.seed) || options.seed < 0))
			throw new Error('Invalid sandbox option seed: expected an integer >= 0');
		this.seed(options.seed ?? 300, options.seedValue ?? 1, options.now);
	}

	private freshConfig(): RuntimeConfig {
		return {
			...this.startCfg,
			retrySchedule: [...this.startCfg.retrySchedule],
			ca: [...this.startCfg.ca],
		};
	}

	seed(count: number, seedValue: number, now?: string) {
		let nowMs = Date.now();
		if (now !== undefined) {
			const p = parseDateTime(now, this.cfg.timeZone);
			if (!p) throw new Error(`Invalid "now": ${now}`);
			nowMs = p.ms;
		}
		this.store.load(seedAppointments(count, seedValue, nowMs, this.cfg.timeZone));
		this.seedWorld = world(seedValue);
		this.rand = rng(seedValue * 31 + 1_000_003);
	}

	/** Back to the start-up state, with a new seed when given. */
	reset(seed: { seed?: number; seedValue?: number; now?: string }) {
		this.cfg = this.freshConfig();
		this.tokens = new Set(this.startTokens);
		this.restricted = new Set(this.startRestricted);
		this.store.setZone(this.cfg.timeZone);
		this.deliveries.reset();
		this.deliveries.configChanged();
		this.webhooks.clear();
		this.emails = [];
		this.mailbox.clear();
		this.requests.clear();
		this.faults.clear();
		this.written.clear();
		this.seed(
			seed.seed ?? this.options.seed ?? 300,
			seed.seedValue ?? this.options.seedValue ?? 1,
			seed.now ?? this.options.now,
		);
	}

	/** Queues the event for every webhook subscribed to it; returns the deliveries queued. */
	emit(event: EventName, a: Appointment): Notification[] {
		const targets = [...this.webhooks.values()].filter((w) => w.events.includes(event));
		if (!targets.length) return [];
		const body = `{"event":${JSON.stringify(event)},"timestamp":${JSON.stringify(formatInstantMs(Date.now(), this.cfg.timeZone))},"data":${this.store.json(a)}}`;
		return this.deliveries.enqueue(event, a.appointment_key, body, targets);
	}

	/** Notes a creation for the read-after-write lag. */
	wrote(key: string) {
		if (this.cfg.readLagMs > 0) this.written.set(key, Date.now());
	}

	/**
	 * Keys the API's reads do not see yet (the replica `readLagMs` behind the primary). Checked on the sandbox's
	 * clock at each read, so lowering `readLagMs` at run time (to 0: the replica caught up) ends the lag at once;
	 * a record once readable stays so.
	 */
	unreadable(): ReadonlySet<string> {
		if (!this.written.size) return NOTHING_HIDDEN;
		const since = Date.now() - this.cfg.readLagMs;
		for (const [key, at] of this.written) if (at <= since) this.written.delete(key);
		return new Set(this.written.keys());
	}

	recordEmail(a: Appointment) {
		this.emails.push({
			appointment_key: a.appointment_key,
			to: a.person.email,
			type: 'cancellation',
			at: new Date().toISOString(),
		});
		this.mailbox.add(
			cancellationMessage(a, formatHuman(a.start, this.cfg.timeZone), this.cfg.timeZone),
		);
	}
}
