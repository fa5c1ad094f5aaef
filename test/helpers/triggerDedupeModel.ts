/**
 * The model-based test of the trigger's dedupe memory and claim protocol (test/trigger/dedupe.test.ts runs it):
 * random sequences of steps are applied to the real RecentKeys + claimEvent and to `Reference`, the rules written
 * as plainly as possible, and every answer and every notification's "duplicate or not" must agree.
 *
 *   stepsArbitrary(size): fc.Arbitrary<Case>     a mode, a first window and the steps
 *   checkCase(c): void                            throws on the first disagreement, naming the step
 *
 * Steps: claim a notification (several copies of one may be claimed and unsettled at once), run an unsettled
 * claim (its answer stays open), finish an open answer with a 2xx or an error status, drop an unsettled claim,
 * resize the window; and the caller hanging up at every step: before its claim is settled (a claimed copy, a
 * waiting one), while its run is answered, after its answer. A claim never settled is the re-read that failed.
 * A copy settling while another copy's run is answered waits (Claim.settle): the step `settle` runs that wait,
 * and the reference wakes its waiters, in order, when that answer ends.
 */
import { EventEmitter } from 'node:events';

import fc from 'fast-check';

import {
	claimEvent,
	MAX_WAITERS,
	RecentKeys,
	type Claim,
	type DedupeMode,
	type Notification,
	type Settled,
} from '../../nodes/Appointments/trigger/dedupe';

/** A copy waiting in the reference: its notification, its claim's id, how it settles, whether its caller is gone. */
interface Waiter {
	n: Notification;
	by: number;
	how: 'run' | 'drop';
	gone: () => boolean;
	done: (got: Settled) => void;
}

/** The rules, plainly: what is remembered (oldest first) and which claim remembered it, and whose answer is open. */
export class Reference {
	remembered: Array<{ key: string; by: number }> = [];
	/** Per key, the last run remembered whose answer n8n has not finished. */
	private readonly answering = new Map<string, number>();
	/** Per run whose answer is open, the copies waiting for it (an evicted key's run keeps its own). */
	private readonly waiters = new Map<number, Waiter[]>();
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

	/** Nothing runs for a caller that is gone; settling fails when another copy settled the key first; else a run is remembered. */
	run(n: Notification, by: number, gone: boolean): Settled {
		const key = this.keyOf(n);
		if (gone) return 'hungUp';
		if (key === undefined) return 'ran';
		if (this.holds(key)) return 'taken';
		this.remember(key, by);
		this.answering.set(key, by);
		this.waiters.set(by, []);
		return 'ran';
	}

	/** A drop is remembered only when the key names this one notification. */
	drop(n: Notification, by: number): Settled {
		const key = this.keyOf(n);
		if (key === undefined) return 'dropped';
		if (this.holds(key)) return 'taken';
		if (this.mode === 'eventKeyTimestamp') this.remember(key, by);
		return 'dropped';
	}

	/** Settles; when taken while a run of the key is answered, waits for it (undefined), at most MAX_WAITERS a key. */
	settle(w: Waiter): Settled | undefined {
		const got = w.how === 'run' ? this.run(w.n, w.by, w.gone()) : this.drop(w.n, w.by);
		const run = got === 'taken' ? this.answering.get(this.keyOf(w.n)!) : undefined;
		if (run === undefined) return got;
		const waiters = this.waiters.get(run)!;
		if (waiters.length >= MAX_WAITERS) return 'busy';
		waiters.push(w);
		return undefined;
	}

	/** The run's answer ends; one that is not a 2xx the service got forgets what that run remembered, if it still is. Its waiters settle again, in order. */
	answered(n: Notification, by: number, acknowledged: boolean): void {
		const key = this.keyOf(n)!;
		if (!acknowledged)
			this.remembered = this.remembered.filter((r) => !(r.key === key && r.by === by));
		if (this.answering.get(key) === by) this.answering.delete(key);
		const waiters = this.waiters.get(by) ?? [];
		this.waiters.delete(by);
		for (const w of waiters) {
			const got = this.settle(w);
			if (got !== undefined) w.done(got);
		}
	}

	resize(limit: number): void {
		this.limit = limit;
		this.remembered = this.remembered.slice(-limit);
	}

	private remember(key: string, by: number): void {
		this.remembered = [...this.remembered, { key, by }].slice(-this.limit);
	}
}

/** What a claim reads of the delivery's response, as on Node's http.ServerResponse: state first, 'close' last. */
export class Answer extends EventEmitter {
	statusCode = 200;
	writableFinished = false;
	destroyed = false;
	closed = false;
	finish(status: number): void {
		if (this.closed) return;
		this.statusCode = status;
		this.writableFinished = true;
		this.closed = true;
		this.emit('close');
	}
	/** The caller hung up (the service gave up waiting): at any step, also before anything listens. */
	lose(): void {
		if (this.closed) return;
		this.destroyed = this.closed = true;
		this.emit('close');
	}
}

type Step =
	| { do: 'claim'; note: number }
	| { do: 'run' | 'drop' | 'settleRun' | 'settleDrop' | 'hangUp'; pick: number }
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
	const pick = (...kinds: Array<'run' | 'drop' | 'settleRun' | 'settleDrop' | 'hangUp'>) =>
		fc.record({ do: fc.constantFrom(...kinds), pick: fc.nat() });
	const step: fc.Arbitrary<Step> = fc.oneof(
		{ weight: 4, arbitrary: fc.record({ do: fc.constant('claim' as const), note: fc.nat() }) },
		{ weight: 3, arbitrary: pick('run', 'drop', 'settleRun', 'settleDrop') },
		{ weight: 1, arbitrary: pick('hangUp') },
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
	answer: Answer;
}

/** Lets every promise the last step settled run its continuation (a copy's wait ends in a microtask). */
const drained = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The real memory and the reference side by side, with the claims, waits and answers still open. */
class Pair {
	readonly store: RecentKeys | undefined;
	readonly model: Reference;
	private readonly unsettled: Array<Open & { claim: Claim }> = [];
	/** Deliveries whose caller is still there: claimed, waiting or running (a caller that hangs up leaves). */
	private readonly callers: Open[] = [];
	/** Runs whose answer is open. */
	private readonly answers: Open[] = [];
	/** Waits, real and modelled, whose outcomes must agree once the step's promises ran. */
	private readonly waits: Array<{ real?: Settled; model?: Settled; n: Notification }> = [];
	private ids = 0;
	constructor(private readonly c: Case) {
		this.store = c.mode === 'off' ? undefined : new RecentKeys(c.limit);
		this.model = new Reference(c.mode, c.limit);
	}

	/** Applies one step to both; a disagreement in what they answer is returned. */
	apply(step: Step, all: Notification[]): string | undefined {
		switch (step.do) {
			case 'claim':
				return this.claim(all[step.note % all.length]);
			case 'run':
			case 'drop':
				return this.settleNow(step.do, step.pick);
			case 'settleRun':
			case 'settleDrop':
				this.settleWaiting(step.do === 'settleRun' ? 'run' : 'drop', step.pick);
				return undefined;
			case 'hangUp':
				if (this.callers.length > 0) this.close(this.callers[step.pick % this.callers.length]);
				return undefined;
			case 'finish':
				if (this.answers.length > 0)
					this.close(this.answers[step.pick % this.answers.length], step.status);
				return undefined;
			case 'resize':
				this.store?.resize(step.limit);
				this.model.resize(step.limit);
				return undefined;
		}
	}

	private claim(n: Notification): string | undefined {
		const answer = new Answer();
		const claim = claimEvent(this.store, this.c.mode, n, answer);
		if (claim !== undefined) {
			const open = { n, id: ++this.ids, answer, claim };
			this.unsettled.push(open);
			this.callers.push(open);
		}
		return (claim === undefined) !== this.model.isDuplicate(n)
			? `claim gave ${claim ? 'a claim' : 'duplicate'}`
			: undefined;
	}

	/** The answer ends: sent with `status`, or lost (the caller hung up) at whatever step its delivery is. */
	private close(open: Open, status: number | 'lost' = 'lost'): void {
		if (status === 'lost') open.answer.lose();
		else open.answer.finish(status);
		this.callers.splice(this.callers.indexOf(open), 1);
		const running = this.answers.indexOf(open);
		if (running < 0) return;
		this.answers.splice(running, 1);
		this.model.answered(open.n, open.id, status !== 'lost' && status <= 299);
	}

	/** What a settled delivery leaves open: the answer of its run, else nothing. */
	private settled(open: Open, got: Settled): void {
		if (got === 'ran') this.answers.push(open);
		else if (this.callers.includes(open)) this.callers.splice(this.callers.indexOf(open), 1);
	}

	private settleNow(how: 'run' | 'drop', pick: number): string | undefined {
		if (this.unsettled.length === 0) return undefined;
		const [open] = this.unsettled.splice(pick % this.unsettled.length, 1);
		const got = how === 'run' ? open.claim.run() : open.claim.drop();
		const want =
			how === 'run'
				? this.model.run(open.n, open.id, open.answer.closed)
				: this.model.drop(open.n, open.id);
		this.settled(open, want);
		return got !== want ? `${how} gave ${got}, the reference ${want}` : undefined;
	}

	private settleWaiting(how: 'run' | 'drop', pick: number): void {
		if (this.unsettled.length === 0) return;
		const [open] = this.unsettled.splice(pick % this.unsettled.length, 1);
		const wait: { real?: Settled; model?: Settled; n: Notification } = { n: open.n };
		this.waits.push(wait);
		void open.claim.settle(how).then((got) => (wait.real = got));
		const done = (got: Settled) => {
			wait.model = got;
			this.settled(open, got);
		};
		const gone = () => open.answer.closed;
		const got = this.model.settle({ n: open.n, by: open.id, how, gone, done });
		if (got !== undefined) done(got);
	}

	/** Once the step's waits ran: where the memory and the reference disagree on an outcome, the size or a duplicate. */
	async disagreement(notes: Notification[]): Promise<string | undefined> {
		await drained();
		const wait = this.waits.find((w) => w.real !== w.model);
		if (wait !== undefined)
			return `a wait of ${JSON.stringify(wait.n)} gave ${wait.real}, the reference ${wait.model}`;
		if ((this.store?.size ?? 0) !== this.model.remembered.length)
			return `the memory holds ${this.store?.size ?? 0} keys, the reference ${this.model.remembered.length}`;
		const answer = new Answer();
		const n = notes.find(
			(x) =>
				(claimEvent(this.store, this.c.mode, x, answer) === undefined) !==
				this.model.isDuplicate(x),
		);
		return n === undefined
			? undefined
			: `${JSON.stringify(n)}: duplicate for one, not for the other`;
	}
}

export async function checkCase(c: Case): Promise<void> {
	const all = notifications(c.appointments);
	const pair = new Pair(c);
	for (const [i, step] of c.steps.entries()) {
		// Every notification after every step of a small case; with many appointments, the size after every step and
		// every notification after the last.
		const checked = c.appointments <= 10 || i === c.steps.length - 1 ? all : [];
		const problem = pair.apply(step, all) ?? (await pair.disagreement(checked));
		if (problem !== undefined) {
			throw new Error(
				`step ${i} ${JSON.stringify(step)}: ${problem}; the reference remembers ${JSON.stringify(pair.model.remembered)}`,
			);
		}
	}
}
