/**
 * The model-based test of the trigger's dedupe memory and claim protocol (test/trigger/dedupe.test.ts runs it):
 * random sequences of steps are applied to the real RecentKeys + claimEvent and to `Reference`, the rules written
 * as plainly as possible, and every answer and every notification's "duplicate or not" must agree.
 *
 *   stepsArbitrary(size): fc.Arbitrary<Case>     a mode, a first window and the steps
 *   checkCase(c): void                            throws on the first disagreement, naming the step
 *
 * Steps: claim a notification (several copies of one may be claimed and unsettled at once), run an unsettled
 * claim (its answer stays open), finish an open answer with a 2xx or an error status or lose its connection,
 * drop an unsettled claim, resize the window. A claim never settled is the re-read that failed. (A copy's wait
 * for an open answer, retryAfterAnswer, is async: test/trigger/delivery.test.ts.)
 */
import { EventEmitter } from 'node:events';

import fc from 'fast-check';

import {
	claimEvent,
	RecentKeys,
	type Claim,
	type DedupeMode,
	type Notification,
} from '../../nodes/Appointments/trigger/dedupe';

/** The rules, plainly: what is remembered (oldest first) and which claim remembered it, and whose answer is open. */
export class Reference {
	remembered: Array<{ key: string; by: number }> = [];
	/** Per key, the last run remembered whose answer n8n has not finished. */
	private readonly answering = new Map<string, number>();
	constructor(
		readonly mode: DedupeMode,
		private limit: number,
	) {}

	keyOf(n: Notification): string | undefined {
		if (this.mode === 'off') return undefined;
		return this.mode === 'appointmentKey'
			? n.appointmentKey
			: `${n.event}|${n.appointmentKey}|${n.timestamp}`;
	}

	holds(key: string | undefined): boolean {
		return this.remembered.some((r) => r.key === key);
	}

	/** A new claim is refused (a duplicate) when its key is remembered and no answer to a run of it is open. */
	isDuplicate(n: Notification): boolean {
		const key = this.keyOf(n);
		return this.holds(key) && !this.answering.has(key!);
	}

	/** Settling fails when another copy settled the key first; else a run is remembered. */
	run(n: Notification, by: number): boolean {
		const key = this.keyOf(n);
		if (key === undefined) return true;
		if (this.holds(key)) return false;
		this.remember(key, by);
		this.answering.set(key, by);
		return true;
	}

	/** The run's answer ends; one that is not a 2xx the service got forgets what that run remembered, if it still is. */
	answered(n: Notification, by: number, acknowledged: boolean): void {
		const key = this.keyOf(n)!;
		if (!acknowledged)
			this.remembered = this.remembered.filter((r) => !(r.key === key && r.by === by));
		if (this.answering.get(key) === by) this.answering.delete(key);
	}

	/** A drop is remembered only when the key names this one notification. */
	drop(n: Notification, by: number): boolean {
		const key = this.keyOf(n);
		if (key === undefined) return true;
		if (this.holds(key)) return false;
		if (this.mode === 'eventKeyTimestamp') this.remember(key, by);
		return true;
	}

	resize(limit: number): void {
		this.limit = limit;
		this.remembered = this.remembered.slice(-limit);
	}

	private remember(key: string, by: number): void {
		this.remembered = [...this.remembered, { key, by }].slice(-this.limit);
	}
}

/** What claim.run() reads of the delivery's response, with 'close' last as on Node's http.ServerResponse. */
export class Answer extends EventEmitter {
	statusCode = 200;
	writableFinished = false;
	finish(status: number): void {
		this.statusCode = status;
		this.writableFinished = true;
		this.emit('close');
	}
	/** The connection closed before n8n answered (the service gave up waiting). */
	lose(): void {
		this.emit('close');
	}
}

type Step =
	| { do: 'claim'; note: number }
	| { do: 'run' | 'drop'; pick: number }
	| { do: 'finish'; pick: number; status: number | 'lost' }
	| { do: 'resize'; limit: number };

export interface Case {
	mode: DedupeMode;
	limit: number;
	appointments: number;
	steps: Step[];
}

const EVENTS = ['appointment.created', 'appointment.updated'];
const TIMESTAMPS = ['2026-11-23T10:00:00-03:00', '2026-11-23T10:00:01-03:00'];

function notifications(appointments: number): Notification[] {
	const all: Notification[] = [];
	for (let a = 0; a < appointments; a++) {
		for (const event of EVENTS)
			for (const timestamp of TIMESTAMPS) all.push({ event, appointmentKey: `a${a}`, timestamp });
	}
	return all;
}

/** small: windows of 1-6 over few appointments (every rule meets every other); large: windows up to 300. */
export function stepsArbitrary(size: 'small' | 'large'): fc.Arbitrary<Case> {
	const maxLimit = size === 'small' ? 6 : 300;
	const appointments = size === 'small' ? 3 : 150;
	const step: fc.Arbitrary<Step> = fc.oneof(
		{ weight: 4, arbitrary: fc.record({ do: fc.constant('claim' as const), note: fc.nat() }) },
		{
			weight: 3,
			arbitrary: fc.record({
				do: fc.constantFrom('run' as const, 'drop' as const),
				pick: fc.nat(),
			}),
		},
		{
			weight: 2,
			arbitrary: fc.record({
				do: fc.constant('finish' as const),
				pick: fc.nat(),
				status: fc.constantFrom<number | 'lost'>(200, 204, 500, 503, 'lost'),
			}),
		},
		{
			weight: 1,
			arbitrary: fc.record({
				do: fc.constant('resize' as const),
				limit: fc.integer({ min: 1, max: maxLimit }),
			}),
		},
	);
	return fc.record({
		mode: fc.constantFrom<DedupeMode>('eventKeyTimestamp', 'appointmentKey', 'off'),
		limit: fc.integer({ min: 1, max: maxLimit }),
		appointments: fc.constant(appointments),
		steps: fc.array(step, { maxLength: size === 'small' ? 60 : 2500, size: 'max' }),
	});
}

interface Open {
	n: Notification;
	id: number;
}

/** The real memory and the reference side by side, with the claims and answers still open. */
class Pair {
	readonly store: RecentKeys | undefined;
	readonly model: Reference;
	private readonly unsettled: Array<Open & { claim: Claim }> = [];
	private readonly answers: Array<Open & { answer: Answer }> = [];
	private ids = 0;
	constructor(private readonly c: Case) {
		this.store = c.mode === 'off' ? undefined : new RecentKeys(c.limit);
		this.model = new Reference(c.mode, c.limit);
	}

	/** Applies one step to both; a disagreement in what they answer is returned. */
	apply(step: Step, all: Notification[]): string | undefined {
		switch (step.do) {
			case 'claim': {
				const n = all[step.note % all.length];
				const claim = claimEvent(this.store, this.c.mode, n);
				if (claim !== undefined) this.unsettled.push({ n, id: ++this.ids, claim });
				return (claim === undefined) !== this.model.isDuplicate(n)
					? `claim gave ${claim ? 'a claim' : 'duplicate'}`
					: undefined;
			}
			case 'run':
			case 'drop': {
				if (this.unsettled.length === 0) return undefined;
				const [open] = this.unsettled.splice(step.pick % this.unsettled.length, 1);
				const answer = new Answer();
				const got = step.do === 'run' ? open.claim.run(answer) : open.claim.drop();
				const want =
					step.do === 'run' ? this.model.run(open.n, open.id) : this.model.drop(open.n, open.id);
				if (step.do === 'run' && got) this.answers.push({ ...open, answer });
				return got !== want ? `${step.do} gave ${got}, the reference ${want}` : undefined;
			}
			case 'finish': {
				if (this.answers.length === 0) return undefined;
				const [open] = this.answers.splice(step.pick % this.answers.length, 1);
				if (step.status === 'lost') open.answer.lose();
				else open.answer.finish(step.status);
				this.model.answered(open.n, open.id, step.status !== 'lost' && step.status <= 299);
				return undefined;
			}
			case 'resize':
				this.store?.resize(step.limit);
				this.model.resize(step.limit);
				return undefined;
		}
	}

	/** Where the memory and the reference disagree on size or on whether a notification is a duplicate. */
	disagreement(notes: Notification[]): string | undefined {
		if ((this.store?.size ?? 0) !== this.model.remembered.length)
			return `the memory holds ${this.store?.size ?? 0} keys, the reference ${this.model.remembered.length}`;
		const n = notes.find(
			(x) => (claimEvent(this.store, this.c.mode, x) === undefined) !== this.model.isDuplicate(x),
		);
		return n === undefined
			? undefined
			: `${JSON.stringify(n)}: duplicate for one, not for the other`;
	}
}

export function checkCase(c: Case): void {
	const all = notifications(c.appointments);
	const pair = new Pair(c);
	c.steps.forEach((step, i) => {
		// Every notification after every step of a small case; with many appointments, the size after every step and
		// every notification after the last.
		const checked = c.appointments <= 10 || i === c.steps.length - 1 ? all : [];
		const problem = pair.apply(step, all) ?? pair.disagreement(checked);
		if (problem !== undefined) {
			throw new Error(
				`step ${i} ${JSON.stringify(step)}: ${problem}; the reference remembers ${JSON.stringify(pair.model.remembered)}`,
			);
		}
	});
}
