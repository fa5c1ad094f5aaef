/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- test code, never shipped: made-up calendar keys */
/**
 * The polling trigger's state in static data: what is written reads back the same, unknown statuses, is_cancelled,
 * calendars and odd keys survive, and a state that cannot be read means a new baseline, never a crash on every poll.
 */
import {
	changed,
	entryOf,
	readState,
	writeState,
	type Entry,
} from '../../nodes/Appointments/polling/pollState';

const CALENDAR = { calendar_key: '5D1C2B3A-4E5F-4A6B-8C7D-9E0F1A2B3C4D' };
const OTHER = { calendar_key: '6e2d3c4b-5f60-4b7c-9d8e-0f1a2b3c4d5e' };
const entry = (status: string, start_date: string, more = {}) =>
	entryOf({ status, start_date, ...more });

test('entries read back as written, whatever the key or status', () => {
	const entries = new Map<string, Entry>([
		['3f2b8c1e-9d4a-4c1b-8e2f-0a1b2c3d4e5f', entry('CONFIRMED', '2026-11-24T10:00:00-03:00')],
		['odd;key,with:separators %', entry('WAITING_LIST', '2026-11-25T10:00:00Z')],
		['odd status', entry('x:~;,%', '2026-11-25T10:00:00Z')],
		[
			'flagged',
			entry('PENDING', '2026-11-25T10:00:00Z', { is_cancelled: true, calendar: CALENDAR }),
		],
		['other-calendar', entry('PENDING', '2026-11-25T10:00:00Z', { calendar: OTHER })],
		['same-calendar', entry('CANCELED_CLIENT', '2026-11-25T10:00:00Z', { calendar: CALENDAR })],
	]);
	const data: Record<string, unknown> = {};
	writeState(data, { from: 1, to: 2, entries }, true);
	const state = readState(JSON.parse(JSON.stringify(data)))!;
	expect(state.from).toBe(1);
	expect(state.to).toBe(2);
	expect([...state.entries]).toEqual([...entries]);
	expect(state.entries.get('flagged')).toEqual({
		status: 'PENDING',
		start: Date.parse('2026-11-25T10:00:00Z'),
		flagged: true,
		calendar: CALENDAR.calendar_key.toLowerCase(),
	});
	expect((data.state as { calendars: string }).calendars.split(';')).toHaveLength(2); // each calendar once
	writeState(data, { from: 1, to: 2, entries }, false); // no calendar in the Filters: none kept
	expect(data.state).not.toHaveProperty('calendars');
	expect(readState(data)!.entries.get('flagged')).toEqual({
		status: 'PENDING',
		start: Date.parse('2026-11-25T10:00:00Z'),
		flagged: true,
	});
});

test('a status, start or is_cancelled change is a change; the same instant in another offset, or another calendar, is not', () => {
	const base = entry('CONFIRMED', '2026-11-24T10:00:00-03:00');
	expect(changed(base, entry('CONFIRMED', '2026-11-24T13:00:00.400Z'))).toBe(false);
	expect(changed(base, entry('CONFIRMED', '2026-11-24T10:00:00-03:00', { calendar: OTHER }))).toBe(
		false,
	);
	expect(changed(base, entry('PENDING', '2026-11-24T10:00:00-03:00'))).toBe(true);
	expect(changed(base, entry('CONFIRMED', '2026-11-24T10:15:00-03:00'))).toBe(true);
	expect(
		changed(base, entry('CONFIRMED', '2026-11-24T10:00:00-03:00', { is_cancelled: true })),
	).toBe(true);
});

test('no state, another version or a damaged one: undefined (the next poll takes a new baseline)', () => {
	expect(readState({})).toBeUndefined();
	expect(readState({ state: { v: 2, from: 1, to: 2, entries: '' } })).toBeUndefined();
	expect(readState({ state: { v: 1, from: 1, to: 2, entries: 'abc' } })).toBeUndefined();
	expect(readState({ state: { v: 1, from: 1, to: 2, entries: '%E0%A4%A,0:abc' } })).toBeUndefined();
	expect(
		readState({ state: { v: 1, from: 1, to: 2, entries: 'a,~%E0%A4%A:abc' } }),
	).toBeUndefined();
	expect(readState({ state: { v: 1, from: 1, to: 2, entries: '' } })?.entries.size).toBe(0);
	// An earlier version's entry: no calendar, an unreadable start (forgotten by the next poll).
	expect(
		readState({ state: { v: 1, from: 1, to: 2, entries: 'a,1:!soon' } })?.entries.get('a'),
	).toEqual({ status: 'CANCELED', start: NaN, flagged: false, calendar: undefined });
});
