/** The trigger's dedupe memory: bounded, oldest forgotten first, one per scope, keys per mode. */
import {
	clampWindow,
	DEFAULT_WINDOW,
	dedupeKey,
	forgetScope,
	MAX_SCOPES,
	MAX_WINDOW,
	RecentKeys,
	recentKeysFor,
	scopeCount,
} from '../../nodes/Appointments/trigger/dedupe';

describe('RecentKeys', () => {
	it('never holds more than its window and forgets the oldest keys first', () => {
		const keys = new RecentKeys(1000);
		for (let i = 0; i < 25000; i++) {
			keys.add(`k${i}`);
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
		keys.add('a');
		keys.add('a');
		keys.add('b');
		expect(keys.size).toBe(2);
	});

	it('shrinks at once when the window is made smaller, keeping the newest', () => {
		const keys = new RecentKeys(10);
		for (let i = 0; i < 10; i++) keys.add(String(i));
		keys.resize(3);
		expect(keys.size).toBe(3);
		expect(['7', '8', '9'].every((k) => keys.has(k))).toBe(true);
		expect(keys.has('6')).toBe(false);
	});

	it('clamps nonsense windows', () => {
		expect(clampWindow(undefined)).toBe(DEFAULT_WINDOW);
		expect(clampWindow(0)).toBe(DEFAULT_WINDOW);
		expect(clampWindow(-5)).toBe(DEFAULT_WINDOW);
		expect(clampWindow('abc')).toBe(DEFAULT_WINDOW);
		expect(clampWindow(12.7)).toBe(12);
		expect(clampWindow(1e12)).toBe(MAX_WINDOW);
	});
});

describe('module-level stores', () => {
	it('gives each scope its own memory and follows a changed window', () => {
		const a = recentKeysFor('wf-a\nnode\nproduction', 5);
		const b = recentKeysFor('wf-b\nnode\nproduction', 5);
		a.add('x');
		expect(b.has('x')).toBe(false);
		expect(recentKeysFor('wf-a\nnode\nproduction', 5)).toBe(a);
		for (let i = 0; i < 5; i++) a.add(String(i));
		expect(recentKeysFor('wf-a\nnode\nproduction', 2).size).toBe(2);
		forgetScope('wf-a\nnode\nproduction');
		forgetScope('wf-b\nnode\nproduction');
	});

	it('keeps at most MAX_SCOPES stores, dropping the least recently used', () => {
		const first = recentKeysFor('scope-0', 10);
		recentKeysFor('scope-1', 10).add('early');
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
	it('event + key + timestamp by default: a redelivery matches, a later event of the same appointment does not', () => {
		const created = dedupeKey('eventKeyTimestamp', 'appointment.created', 'k1', '2026-01-01T00:00:00Z');
		expect(dedupeKey('eventKeyTimestamp', 'appointment.created', 'k1', '2026-01-01T00:00:00Z')).toBe(created);
		expect(dedupeKey('eventKeyTimestamp', 'appointment.canceled', 'k1', '2026-01-01T00:00:00Z')).not.toBe(created);
		expect(dedupeKey('eventKeyTimestamp', 'appointment.created', 'k1', '2026-01-01T00:00:01Z')).not.toBe(created);
	});

	it('appointment key alone: every event of an appointment matches; off: no key', () => {
		expect(dedupeKey('appointmentKey', 'appointment.created', 'k1', 't1')).toBe(dedupeKey('appointmentKey', 'appointment.canceled', 'k1', 't2'));
		expect(dedupeKey('off', 'appointment.created', 'k1', 't1')).toBeUndefined();
	});
});
