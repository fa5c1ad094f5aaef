/**
 * The polling trigger's state in static data: what is written reads back the same, unknown statuses and odd keys
 * survive, and a state that cannot be read means a new baseline, never a crash on every poll.
 */
import {
	fingerprint,
	readState,
	statusOf,
	writeState,
	type Entry,
} from '../../nodes/Appointments/polling/pollState';

test('entries read back as written, whatever the key or status', () => {
	const entries = new Map<string, Entry>([
		[
			'3f2b8c1e-9d4a-4c1b-8e2f-0a1b2c3d4e5f',
			{
				fp: fingerprint('CONFIRMED', '2026-11-24T10:00:00-03:00'),
				start: Date.parse('2026-11-24T13:00:00Z'),
			},
		],
		[
			'odd;key,with:separators %',
			{
				fp: fingerprint('WAITING_LIST', '2026-11-25T10:00:00Z'),
				start: Date.parse('2026-11-25T10:00:00Z'),
			},
		],
		['no-start', { fp: fingerprint('CANCELED_CLIENT', 'tomorrow'), start: NaN }],
	]);
	const data: Record<string, unknown> = {};
	writeState(data, { from: 1, to: 2, entries });
	const state = readState(JSON.parse(JSON.stringify(data)))!;
	expect(state.from).toBe(1);
	expect(state.to).toBe(2);
	expect([...state.entries]).toEqual([...entries]);
	expect([...state.entries.values()].map((e) => statusOf(e.fp))).toEqual([
		'CONFIRMED',
		'WAITING_LIST',
		'CANCELED_CLIENT',
	]);
});

test('a status or start change changes the fingerprint; the same instant in another offset does not', () => {
	const base = fingerprint('CONFIRMED', '2026-11-24T10:00:00-03:00');
	expect(fingerprint('CONFIRMED', '2026-11-24T13:00:00Z')).toBe(base);
	expect(fingerprint('PENDING', '2026-11-24T10:00:00-03:00')).not.toBe(base);
	expect(fingerprint('CONFIRMED', '2026-11-24T10:15:00-03:00')).not.toBe(base);
});

test('no state, another version or a damaged one: undefined (the next poll takes a new baseline)', () => {
	expect(readState({})).toBeUndefined();
	expect(readState({ state: { v: 2, from: 1, to: 2, entries: '' } })).toBeUndefined();
	expect(readState({ state: { v: 1, from: 1, to: 2, entries: 'abc' } })).toBeUndefined();
	expect(readState({ state: { v: 1, from: 1, to: 2, entries: '%E0%A4%A,0:abc' } })).toBeUndefined();
	expect(readState({ state: { v: 1, from: 1, to: 2, entries: '' } })?.entries.size).toBe(0);
	expect(statusOf('~%E0%A4%A:abc')).toBe('');
});
