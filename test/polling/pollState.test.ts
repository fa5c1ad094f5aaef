/**
 * The polling trigger's state in static data: what is written reads back the same, unknown statuses and odd keys
 * survive, and a state that cannot be read means a new baseline, never a crash on every poll.
 */
import {
	entryOf,
	readState,
	statusOf,
	writeState,
	type Entry,
} from '../../nodes/Appointments/polling/pollState';

const CALENDAR = { calendar_key: '5D1C2B3A-4E5F-4A6B-8C7D-9E0F1A2B3C4D' };
const fingerprint = (status: unknown, start_date: unknown, more = {}) =>
	entryOf({ status, start_date, ...more } as never).fp;

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
		[
			'flagged',
			entryOf({
				status: 'PENDING',
				start_date: '2026-11-25T10:00:00Z',
				is_cancelled: true,
				calendar: CALENDAR,
			}),
		],
		[
			'other-calendar',
			entryOf({
				status: 'PENDING',
				start_date: '2026-11-25T10:00:00Z',
				calendar: { calendar_key: '6e2d3c4b-5f60-4b7c-9d8e-0f1a2b3c4d5e' },
			}),
		],
		[
			'same-calendar',
			entryOf({ status: 'PENDING', start_date: '2026-11-25T10:00:00Z', calendar: CALENDAR }),
		],
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
		'PENDING',
		'PENDING',
		'PENDING',
	]);
	expect(state.entries.get('flagged')!.calendar).toBe(CALENDAR.calendar_key.toLowerCase());
	expect((data.state as { calendars: string }).calendars.split(';')).toHaveLength(2); // each calendar once
});

test('a status or start change changes the fingerprint; the same instant in another offset does not', () => {
	const base = fingerprint('CONFIRMED', '2026-11-24T10:00:00-03:00');
	expect(fingerprint('CONFIRMED', '2026-11-24T13:00:00Z')).toBe(base);
	expect(fingerprint('PENDING', '2026-11-24T10:00:00-03:00')).not.toBe(base);
	expect(fingerprint('CONFIRMED', '2026-11-24T10:15:00-03:00')).not.toBe(base);
	expect(fingerprint('CONFIRMED', '2026-11-24T10:00:00-03:00', { is_cancelled: true })).not.toBe(
		base,
	);
	expect(fingerprint('CONFIRMED', '2026-11-24T10:00:00-03:00', { calendar: CALENDAR })).toBe(base);
});

test('no state, another version or a damaged one: undefined (the next poll takes a new baseline)', () => {
	expect(readState({})).toBeUndefined();
	expect(readState({ state: { v: 2, from: 1, to: 2, entries: '' } })).toBeUndefined();
	expect(readState({ state: { v: 1, from: 1, to: 2, entries: 'abc' } })).toBeUndefined();
	expect(readState({ state: { v: 1, from: 1, to: 2, entries: '%E0%A4%A,0:abc' } })).toBeUndefined();
	expect(readState({ state: { v: 1, from: 1, to: 2, entries: '' } })?.entries.size).toBe(0);
	expect(statusOf('~%E0%A4%A:abc')).toBe('');
});
