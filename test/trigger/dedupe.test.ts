/**
 * The trigger's dedupe memory: bounded, oldest forgotten first, one per scope, keys per mode; its claim/settle protocol;
 * both against a reference model with random steps (test/helpers/triggerDedupeModel.ts; DEDUPE_SEED=<seed> replays).
 */
import fc from 'fast-check';

import {
	claimEvent,
	dedupeKey,
	forgetScope,
	MAX_SCOPES,
	MAX_WAITERS,
	RecentKeys,
	recentKeysFor,
	scopeCount,
	type DedupeMode,
} from '../../nodes/Appointments/trigger/dedupe';
import { Answer, checkCase, stepsArbitrary } from '../helpers/triggerDedupeModel';

describe('RecentKeys', () => {
	it('never holds more than its window and forgets the oldest keys first', () => {
		const keys = new RecentKeys(1000);
		for (let i = 0; i < 25000; i++) {
			keys.remember(`k${i}`);
			if (keys.size > 1000) throw new Error(`size ${keys.size} after ${i}`);
		}
		expect(keys.size).toBe(1000);
		expect(keys.has('k24999')).toBe(true);
		expect(keys.has('k24000')).toBe(true);
		expect(keys.has('k23999')).toBe(false);
		expect(keys.has('k0')).toBe(false);
	});

	it('adding a key it already holds does not grow it', () => {
		const keys = new RecentKeys(3);
		keys.remember('a');
		keys.remember('a');
		keys.remember('b');
		expect(keys.size).toBe(2);
	});

	it('shrinks at once when the window is made smaller, keeping the newest', () => {
		const keys = new RecentKeys(10);
		for (let i = 0; i < 10; i++) keys.remember(String(i));
		keys.resize(3);
		expect(keys.size).toBe(3);
		expect(['7', '8', '9'].every((k) => keys.has(k))).toBe(true);
		expect(keys.has('6')).toBe(false);
	});

	it('a forgotten key stays forgotten when the window changes, and is never forgotten early once remembered again', () => {
		const keys = new RecentKeys(5);
		for (const k of ['a', 'b', 'c']) keys.remember(k);
		keys.forget('a'); // its run failed: n8n answered the delivery with an error
		keys.resize(4);
		expect(keys.has('a')).toBe(false);
		expect(['b', 'c'].every((k) => keys.has(k))).toBe(true);
		// Remembered again by the resend: it is the newest now, and stays while three newer keys arrive.
		keys.resize(3);
		keys.remember('a');
		keys.remember('d');
		keys.remember('e');
		expect(keys.has('a')).toBe(true);
		expect(keys.size).toBe(3);
	});
});

describe('module-level stores', () => {
	it('gives each scope its own memory and follows a changed window', () => {
		const a = recentKeysFor('wf-a\nnode\nproduction', 5);
		const b = recentKeysFor('wf-b\nnode\nproduction', 5);
		a.remember('x');
		expect(b.has('x')).toBe(false);
		expect(recentKeysFor('wf-a\nnode\nproduction', 5)).toBe(a);
		for (let i = 0; i < 5; i++) a.remember(String(i));
		expect(recentKeysFor('wf-a\nnode\nproduction', 2).size).toBe(2);
		forgetScope('wf-a\nnode\nproduction');
		forgetScope('wf-b\nnode\nproduction');
	});

	it('keeps at most MAX_SCOPES stores, dropping the least recently used', () => {
		const first = recentKeysFor('scope-0', 10);
		recentKeysFor('scope-1', 10).remember('early');
		for (let i = 2; i < MAX_SCOPES + 10; i++) {
			recentKeysFor(`scope-${i}`, 10);
			if (i % 100 === 0) recentKeysFor('scope-0', 10); // in use: never the least recently used
		}
		expect(scopeCount()).toBeLessThanOrEqual(MAX_SCOPES);
		expect(recentKeysFor('scope-0', 10)).toBe(first);
		// scope-1 was not used again: it was the least recently used and its memory is gone.
		expect(recentKeysFor('scope-1', 10).has('early')).toBe(false);
		for (let i = 0; i < MAX_SCOPES + 10; i++) forgetScope(`scope-${i}`);
	});
});

describe('dedupeKey', () => {
	it('event + key + timestamp (default): a redelivery has the same key, a later event of the appointment does not', () => {
		const k = (event: string, key: string, ts: string) =>
			dedupeKey('eventKeyTimestamp', { event, appointmentKey: key, timestamp: ts });
		expect(k('appointment.created', 'k1', '2026-01-01T00:00:00Z')).toBe(
			k('appointment.created', 'k1', '2026-01-01T00:00:00Z'),
		);
		const keys = [
			k('appointment.created', 'k1', '2026-01-01T00:00:00Z'),
			k('appointment.canceled', 'k1', '2026-01-01T00:00:00Z'),
			k('appointment.created', 'k1', '2026-01-01T00:00:01Z'),
			k('appointment.created', 'k2', '2026-01-01T00:00:00Z'),
			// Parts that would run together if they were simply joined.
			k('a', 'bc', '2026-01-01T00:00:00Z'),
			k('ab', 'c', '2026-01-01T00:00:00Z'),
			k('a 1', 'x', '2026-01-01T00:00:00Z'),
			k('a', '1 x', '2026-01-01T00:00:00Z'),
		];
		expect(new Set(keys).size).toBe(keys.length);
	});

	it('appointment key alone: every event of an appointment has the same key', () => {
		const n = (event: string, timestamp: string) => ({ event, appointmentKey: 'k1', timestamp });
		expect(dedupeKey('appointmentKey', n('appointment.created', 't1'))).toBe(
			dedupeKey('appointmentKey', n('appointment.canceled', 't2')),
		);
	});

	it('off: no key, nothing remembered', () => {
		expect(dedupeKey('off', { event: 'e', appointmentKey: 'k1', timestamp: 't1' })).toBeUndefined();
	});
});

/** A claim for the notification of appointment `key` (event + key + timestamp by default), answered by `answer`. */
const claim = (
	keys: RecentKeys | undefined,
	key: string,
	mode: DedupeMode = 'eventKeyTimestamp',
	event = 'appointment.created',
	answer = new Answer(),
) =>
	claimEvent(keys, mode, { event, appointmentKey: key, timestamp: '2026-01-01T00:00:00Z' }, answer);

describe('claimEvent: claimed, then running and answered or forgotten, or dropped', () => {
	it('a settled event makes later copies duplicates; an unsettled one stays free for the resend', () => {
		const keys = new RecentKeys(10);
		const first = claim(keys, 'e1')!;
		expect(claim(keys, 'e1')).toBeDefined(); // claimed, not settled: a copy gets its own claim
		expect(first.drop()).toBe('dropped');
		expect(first.state).toBe('answered');
		expect(claim(keys, 'e1')).toBeUndefined();
		claim(keys, 'e2'); // never settled (the re-read failed)
		expect(claim(keys, 'e2')).toBeDefined();
	});

	it('of two copies claimed at once, the first settled wins and the other settles nothing', () => {
		const keys = new RecentKeys(10);
		const answer = new Answer();
		const [a, b] = [claim(keys, 'e', undefined, undefined, answer)!, claim(keys, 'e')!];
		expect(a.run()).toBe('ran');
		expect(a.state).toBe('running');
		expect(b.drop()).toBe('taken');
		expect(b.run()).toBe('taken');
		answer.finish(200);
		expect(a.state).toBe('answered');
		expect(claim(keys, 'e')).toBeUndefined();
	});

	it('a run that n8n answers with an error is forgotten again, so the resend runs', () => {
		const keys = new RecentKeys(10);
		const answer = new Answer();
		const first = claim(keys, 'e', undefined, undefined, answer)!;
		expect(first.run()).toBe('ran');
		expect(claim(keys, 'e')!.run()).toBe('taken'); // remembered while n8n stores the execution
		answer.finish(500);
		expect(first.state).toBe('forgotten');
		expect(claim(keys, 'e')!.run()).toBe('ran');
	});

	it('a caller that hung up before the run: nothing runs, nothing is remembered, and nobody waits for a close that already happened', async () => {
		const keys = new RecentKeys(10);
		const gone = new Answer();
		const first = claim(keys, 'e', undefined, undefined, gone)!;
		gone.lose(); // during the re-read, or while n8n read the request
		expect(first.run()).toBe('hungUp');
		expect(first.state).toBe('forgotten');
		expect(
			keys.has(
				dedupeKey('eventKeyTimestamp', {
					event: 'appointment.created',
					appointmentKey: 'e',
					timestamp: '2026-01-01T00:00:00Z',
				})!,
			),
		).toBe(false);
		await expect(claim(keys, 'e')!.settle('run')).resolves.toBe('ran'); // the resend
		expect(claim(undefined, 'f', 'off', undefined, gone)!.run()).toBe('hungUp');
	});

	it('copies settling while n8n still answers a run wait for that answer, each settling once the one before was not a 2xx', async () => {
		const keys = new RecentKeys(10);
		const first = new Answer();
		expect(claim(keys, 'e', undefined, undefined, first)!.run()).toBe('ran');
		const copyAnswer = new Answer();
		const [copy, later] = [claim(keys, 'e', undefined, undefined, copyAnswer)!, claim(keys, 'e')!];
		const [ran, dropped] = [copy.settle('run'), later.settle('drop')];
		first.lose(); // the service gave up waiting: the copy runs, the later one now waits for the copy's answer
		await expect(ran).resolves.toBe('ran');
		copyAnswer.finish(500); // n8n could not start the copy's run either: the later one settles (filtered out)
		await expect(dropped).resolves.toBe('dropped');
		expect(claim(keys, 'e')).toBeUndefined();
		const ok = new Answer();
		expect(claim(keys, 'f', undefined, undefined, ok)!.run()).toBe('ran');
		const settled = claim(keys, 'f')!.settle('drop');
		ok.finish(200);
		await expect(settled).resolves.toBe('taken');
	});

	it('a waiting copy whose caller hangs up while it waits runs nothing when it wakes; at most MAX_WAITERS copies wait, the next is busy', async () => {
		const keys = new RecentKeys(10);
		const first = new Answer();
		expect(claim(keys, 'e', undefined, undefined, first)!.run()).toBe('ran');
		const answers = Array.from({ length: MAX_WAITERS }, () => new Answer());
		const waits = answers.map((a) => claim(keys, 'e', undefined, undefined, a)!.settle('run'));
		await expect(claim(keys, 'e')!.settle('run')).resolves.toBe('busy');
		for (const a of answers) a.lose();
		first.finish(503);
		expect(await Promise.all(waits)).toEqual(answers.map(() => 'hungUp'));
		await expect(claim(keys, 'e')!.settle('run')).resolves.toBe('ran'); // nothing left blocking the resend
	});

	it("an error answer forgets only its own run: a later copy's run of the same event stays remembered", () => {
		const keys = new RecentKeys(1);
		const first = new Answer();
		expect(claim(keys, 'e', undefined, undefined, first)!.run()).toBe('ran');
		keys.remember('x'); // the window moves on while n8n still stores the first execution: 'e' is evicted
		const resend = new Answer();
		expect(claim(keys, 'e', undefined, undefined, resend)!.run()).toBe('ran');
		first.finish(500);
		resend.finish(200);
		expect(claim(keys, 'e')).toBeUndefined();
	});

	it('a dropped event never makes another one a duplicate: by notification a resend of it is, by appointment key nothing is remembered', () => {
		const keys = new RecentKeys(10);
		expect(claim(keys, 'e')!.drop()).toBe('dropped'); // filtered out on its re-read
		expect(claim(keys, 'e')).toBeUndefined(); // its resend would end the same way
		expect(claim(keys, 'e', 'eventKeyTimestamp', 'appointment.updated')).toBeDefined();
		expect(claim(keys, 'a', 'appointmentKey')!.drop()).toBe('dropped');
		expect(keys.size).toBe(1);
		const later = new Answer();
		expect(claim(keys, 'a', 'appointmentKey', 'appointment.updated', later)!.run()).toBe('ran');
		later.finish(200);
		expect(claim(keys, 'a', 'appointmentKey', 'appointment.canceled')).toBeUndefined();
		// A copy dropped after another copy ran: settled by that run, so it is the duplicate.
		const copy = claim(keys, 'b', 'appointmentKey')!;
		expect(claim(keys, 'b', 'appointmentKey')!.run()).toBe('ran');
		expect(copy.drop()).toBe('taken');
	});

	it('dedupe off: every copy gets a claim and nothing is remembered', () => {
		const keys = new RecentKeys(10);
		expect(claim(undefined, 'e')!.drop()).toBe('dropped');
		expect(claim(keys, 'e', 'off')!.run()).toBe('ran');
		expect(claim(keys, 'e', 'off')).toBeDefined();
		expect(keys.size).toBe(0);
	});
});

describe('the memory and the claim protocol against a plain reference model (fast-check)', () => {
	const seed = process.env.DEDUPE_SEED
		? Number(process.env.DEDUPE_SEED)
		: Math.floor(Math.random() * 2 ** 31);
	beforeAll(() => console.log(`dedupe model: DEDUPE_SEED=${seed} replays this run`));

	it.each([
		['small', 1000],
		['large', 15],
	] as const)(
		'%s windows: random claims, runs, waits, drops, answers (2xx, an error), callers hanging up at every step and resizes agree with the reference',
		async (size, numRuns) => {
			await fc.assert(fc.asyncProperty(stepsArbitrary(size), checkCase), { seed, numRuns });
		},
	);
});
