/**
 * Webhook delivery: one job per (event, webhook[, copy]); attempts over one reusable undici Agent, retried on the
 * configured schedule, every attempt logged. The API never waits for it.
 */
import crypto from 'node:crypto';
import tls from 'node:tls';
import { Agent } from 'undici';

import { postCallback } from './callback';
import { Queue, shuffle } from './jobQueue';
import type { RuntimeConfig } from './options';

/** Which event went where: what a delivery and each of its attempts are known by. */
interface DeliveryTarget {
	event_id: string;
	/** 1, or 2 for the second copy when duplicateDelivery is on */
	copy: number;
	webhook_key: string;
	url: string;
	event: string;
	appointment_key: string;
}

export interface DeliveryLogEntry extends DeliveryTarget {
	attempt: number;
	/** HTTP status of the callback's answer, null when there was none (time-out, connection error) */
	status: number | null;
	error: string | null;
	ok: boolean;
	/** true on the last failed attempt: no further attempt will be made */
	gave_up: boolean;
	at: string;
	duration_ms: number;
}

export type NotificationState = 'queued' | 'sending' | 'retry scheduled' | 'delivered' | 'given up';

/** One delivery (event × webhook × copy) as the dashboard shows it: its payload, state and next retry. */
export interface Notification extends DeliveryTarget {
	body: string;
	attempts: number;
	state: NotificationState;
	/** epoch ms of the next attempt while a retry is scheduled */
	nextAt?: number;
	queuedAt: number;
}

interface Job extends Notification {
	timer?: NodeJS.Timeout;
	generation: number;
}

/** How many of the latest deliveries the dashboard can show (with their payloads). */
const RECENT_NOTIFICATIONS = 2000;

export interface DeliveryCounters {
	pending: number;
	total_events: number;
	attempts: number;
	succeeded: number;
	failed_attempts: number;
	gave_up: number;
}

export class DeliveryEngine {
	log: DeliveryLogEntry[] = [];
	/** The latest deliveries, oldest first (bounded). */
	recent: Notification[] = [];
	private ready = new Queue<Job>();
	private held: Job[] = [];
	private heldTimer?: NodeJS.Timeout;
	private waiting = new Set<Job>();
	private inFlight = new Set<Promise<void>>();
	private generation = 0;
	private agent: Agent;
	private agentCa: string;
	private closing = false;
	private counters: Omit<DeliveryCounters, 'pending'> = {
		total_events: 0,
		attempts: 0,
		succeeded: 0,
		failed_attempts: 0,
		gave_up: 0,
	};
	pending = 0;

	constructor(
		private readonly cfg: () => RuntimeConfig,
		private readonly maxLog = 200_000,
		private readonly userAgent = 'appointments-sandbox/1.0',
	) {
		this.agentCa = JSON.stringify(cfg().ca);
		this.agent = this.makeAgent();
	}

	private makeAgent(): Agent {
		const ca = this.cfg().ca;
		return new Agent({
			connect: ca.length ? { ca: [...tls.rootCertificates, ...ca] } : {},
			keepAliveTimeout: 10_000,
			keepAliveMaxTimeout: 60_000,
		});
	}

	/** Call after the configuration changed: a new trust store gets a new Agent. */
	configChanged() {
		const ca = JSON.stringify(this.cfg().ca);
		if (ca !== this.agentCa) {
			const old = this.agent;
			this.agentCa = ca;
			this.agent = this.makeAgent();
			void old.close().catch(() => undefined);
		}
		this.pump();
	}

	stats(): DeliveryCounters {
		return { pending: this.pending, ...this.counters };
	}

	/**
	 * Queues one event for each webhook. `body` is the serialised envelope, identical for every attempt.
	 * Returns the deliveries queued.
	 */
	enqueue(
		event: string,
		appointmentKey: string,
		body: string,
		targets: Array<{ webhook_key: string; url: string }>,
	): Notification[] {
		if (this.closing || !targets.length) return [];
		const queued: Job[] = [];
		const cfg = this.cfg();
		const event_id = crypto.randomUUID();
		const copies = cfg.duplicateDelivery ? 2 : 1;
		for (const t of targets) {
			for (let copy = 1; copy <= copies; copy++) {
				const job: Job = {
					event_id,
					copy,
					webhook_key: t.webhook_key,
					url: t.url,
					event,
					appointment_key: appointmentKey,
					body,
					attempts: 0,
					state: 'queued',
					queuedAt: Date.now(),
					generation: this.generation,
				};
				queued.push(job);
				this.pending++;
				this.counters.total_events++;
				if (cfg.shuffleDelivery) this.held.push(job);
				else this.ready.push(job);
			}
		}
		if (cfg.shuffleDelivery) {
			this.heldTimer ??= setTimeout(() => {
				this.heldTimer = undefined;
				for (const j of shuffle(this.held.splice(0))) this.ready.push(j);
				this.pump();
			}, cfg.shuffleWindowMs);
		}
		this.recent.push(...queued);
		if (this.recent.length > RECENT_NOTIFICATIONS)
			this.recent.splice(0, this.recent.length - RECENT_NOTIFICATIONS);
		this.pump();
		return queued;
	}

	private pump() {
		const limit = this.cfg().deliveryConcurrency;
		while (!this.closing && this.inFlight.size < limit && this.ready.length) {
			const job = this.ready.shift()!;
			if (job.generation !== this.generation) continue;
			const p: Promise<void> = this.attempt(job).finally(() => {
				this.inFlight.delete(p);
				this.pump();
			});
			this.inFlight.add(p);
		}
	}

	private async attempt(job: Job): Promise<void> {
		const cfg = this.cfg();
		job.attempts++;
		job.state = 'sending';
		job.nextAt = undefined;
		const started = Date.now();
		const { status, error } = await postCallback(
			this.agent,
			job,
			this.userAgent,
			cfg.deliveryTimeoutMs,
			cfg.deliveryFailRate,
		);
		if (job.generation !== this.generation) return; // reset while in flight: not part of the new log
		const ok = error === null;
		const retries = cfg.retrySchedule;
		const gaveUp = !ok && (job.attempts > retries.length || this.closing);
		this.counters.attempts++;
		if (ok) this.counters.succeeded++;
		else this.counters.failed_attempts++;
		if (gaveUp) this.counters.gave_up++;
		this.record(
			job,
			status,
			ok
				? null
				: this.closing && job.attempts <= retries.length
					? `${error}; sandbox shut down, no further attempt`
					: error,
			ok,
			gaveUp,
			started,
		);
		if (ok || gaveUp) {
			job.state = ok ? 'delivered' : 'given up';
			this.pending--;
			return;
		}
		const wait = retries[job.attempts - 1];
		job.state = 'retry scheduled';
		job.nextAt = Date.now() + wait;
		job.timer = setTimeout(() => {
			this.waiting.delete(job);
			job.timer = undefined;
			if (job.generation !== this.generation) return;
			job.state = 'queued';
			this.ready.push(job);
			this.pump();
		}, wait);
		this.waiting.add(job);
	}

	private record(
		job: Job,
		status: number | null,
		error: string | null,
		ok: boolean,
		gaveUp: boolean,
		started: number,
	) {
		if (this.log.length >= this.maxLog) this.log.splice(0, Math.ceil(this.maxLog / 10));
		const { event_id, copy, webhook_key, url, event, appointment_key } = job;
		this.log.push({
			event_id,
			copy,
			webhook_key,
			url,
			event,
			appointment_key,
			attempt: job.attempts,
			status,
			error,
			ok,
			gave_up: gaveUp,
			at: new Date(started).toISOString(),
			duration_ms: Date.now() - started,
		});
	}

	/** Drops every queued and scheduled delivery and the log (sandbox reset). In-flight attempts are not logged. */
	reset() {
		this.generation++;
		for (const j of this.waiting) clearTimeout(j.timer);
		this.waiting.clear();
		this.ready.drain();
		this.held = [];
		if (this.heldTimer) clearTimeout(this.heldTimer);
		this.heldTimer = undefined;
		this.pending = 0;
		this.log = [];
		this.recent = [];
		this.counters = { total_events: 0, attempts: 0, succeeded: 0, failed_attempts: 0, gave_up: 0 };
	}

	clearLog() {
		this.log = [];
		this.recent = this.recent.filter((j) => j.state !== 'delivered' && j.state !== 'given up');
	}

	/**
	 * Shutdown: attempts in flight finish (bounded by the delivery time-out) and are logged; queued and scheduled
	 * deliveries are logged as given up without another attempt.
	 */
	async close(): Promise<void> {
		this.closing = true;
		if (this.heldTimer) clearTimeout(this.heldTimer);
		const notSent = [...this.ready.drain(), ...this.held.splice(0)].filter(
			(j) => j.generation === this.generation,
		);
		for (const j of this.waiting) {
			clearTimeout(j.timer);
			if (j.generation === this.generation) notSent.push(j);
		}
		this.waiting.clear();
		for (const j of notSent) {
			j.state = 'given up';
			j.nextAt = undefined;
			this.counters.gave_up++;
			this.pending--;
			this.record(
				{ ...j, attempts: j.attempts },
				null,
				'sandbox shut down before this delivery was attempted again',
				false,
				true,
				Date.now(),
			);
		}
		await Promise.allSettled([...this.inFlight]);
		await this.agent.close().catch(() => undefined);
	}
}
