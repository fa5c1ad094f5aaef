/**
 * Pure date logic: presets with a fixed clock across DST changes, window bounds, offset conversion, and the
 * window edges written in the account's zone so that every parser reads them alike.
 */
import { DateTime } from 'luxon';

import {
	DateInputError,
	presetRange,
	toDateTime,
	toInstant,
	toOffsetIso,
} from '../../nodes/Appointments/shared/dateInput';
import {
	edgeWallClock,
	inWindow,
	startInstant,
	wallClockReadings,
	startWindowQuery,
} from '../../nodes/Appointments/shared/dateWindow';

const SCL = 'America/Santiago';
const BER = 'Europe/Berlin';
const at = (iso: string) => () => DateTime.fromISO(iso, { setZone: true });
/** An instant as ISO 8601 in `zone`, with its offset: which of two equal wall clocks it is shows. */
const iso = (ms: number | undefined, zone: string) =>
	ms === undefined
		? undefined
		: DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true });
/** A preset's instants in `zone`: { start, end } as ISO with offset. */
function days(range: { from: number; to: number } | undefined, zone: string) {
	return range && { start: iso(range.from, zone), end: iso(range.to, zone) };
}
const startOf = (range: { from: number } | undefined, zone: string) => iso(range?.from, zone);

describe('presetRange', () => {
	test("a day runs from its first instant to 23:59:59 of its own date; Santiago's 2026-09-06 starts at 01:00", () => {
		const sixth = { start: '2026-09-06T01:00:00-03:00', end: '2026-09-06T23:59:59-03:00' };
		expect(days(presetRange('today', SCL, at('2026-09-06T12:00:00-03:00')), SCL)).toEqual(sixth);
		expect(days(presetRange('yesterday', SCL, at('2026-09-07T08:00:00-03:00')), SCL)).toEqual(
			sixth,
		);
		expect(days(presetRange('tomorrow', SCL, at('2026-09-05T22:00:00-04:00')), SCL)).toEqual(sixth);
		// The day before ends at its own 23:59:59, one second before the clocks jump.
		expect(days(presetRange('today', SCL, at('2026-09-05T12:00:00-04:00')), SCL)).toEqual({
			start: '2026-09-05T00:00:00-04:00',
			end: '2026-09-05T23:59:59-04:00',
		});
	});

	test('"today" follows the local date right before and after the Santiago changes', () => {
		// 03:59Z = 23:59 -04 on the 5th; 04:00Z = 01:00 -03 on the 6th.
		expect(startOf(presetRange('today', SCL, at('2026-09-06T03:59:00Z')), SCL)).toBe(
			'2026-09-05T00:00:00-04:00',
		);
		expect(startOf(presetRange('today', SCL, at('2026-09-06T04:00:00Z')), SCL)).toBe(
			'2026-09-06T01:00:00-03:00',
		);
		// Autumn: 23:00-23:59 of 2026-04-04 happens twice; both are still the 4th, which ends at the second 23:59:59.
		const fourth = { start: '2026-04-04T00:00:00-03:00', end: '2026-04-04T23:59:59-04:00' };
		expect(days(presetRange('today', SCL, at('2026-04-05T02:30:00Z')), SCL)).toEqual(fourth);
		expect(days(presetRange('today', SCL, at('2026-04-05T03:30:00Z')), SCL)).toEqual(fourth);
		expect(startOf(presetRange('today', SCL, at('2026-04-05T04:00:00Z')), SCL)).toBe(
			'2026-04-05T00:00:00-04:00',
		);
	});

	test('Berlin spring-forward and fall-back days are whole days', () => {
		expect(days(presetRange('today', BER, at('2026-03-28T23:30:00Z')), BER)).toEqual({
			start: '2026-03-29T00:00:00+01:00',
			end: '2026-03-29T23:59:59+02:00',
		});
		expect(startOf(presetRange('tomorrow', BER, at('2026-03-28T12:00:00Z')), BER)).toBe(
			'2026-03-29T00:00:00+01:00',
		);
		expect(days(presetRange('yesterday', BER, at('2026-10-26T00:30:00+01:00')), BER)).toEqual({
			start: '2026-10-25T00:00:00+02:00',
			end: '2026-10-25T23:59:59+01:00',
		});
	});

	test('the same instant is a different day in different zones', () => {
		const now = at('2026-03-10T02:00:00Z');
		expect(startOf(presetRange('today', SCL, now), SCL)).toBe('2026-03-09T00:00:00-03:00');
		expect(startOf(presetRange('today', BER, now), BER)).toBe('2026-03-10T00:00:00+01:00');
	});

	test('this week runs Monday..Sunday and next 7 days is today plus six, across a change', () => {
		// Wednesday 2026-09-02; the week ends on Sunday 2026-09-06, the Santiago change day.
		expect(days(presetRange('thisWeek', SCL, at('2026-09-02T10:00:00-04:00')), SCL)).toEqual({
			start: '2026-08-31T00:00:00-04:00',
			end: '2026-09-06T23:59:59-03:00',
		});
		// On the Sunday itself the week is still the same one.
		expect(startOf(presetRange('thisWeek', SCL, at('2026-09-06T20:00:00-03:00')), SCL)).toBe(
			'2026-08-31T00:00:00-04:00',
		);
		expect(days(presetRange('next7Days', SCL, at('2026-09-03T10:00:00-04:00')), SCL)).toEqual({
			start: '2026-09-03T00:00:00-04:00',
			end: '2026-09-09T23:59:59-03:00',
		});
		expect(days(presetRange('next7Days', BER, at('2026-10-22T10:00:00+02:00')), BER)).toEqual({
			start: '2026-10-22T00:00:00+02:00',
			end: '2026-10-28T23:59:59+01:00',
		});
		// Across a year end.
		expect(days(presetRange('thisWeek', BER, at('2026-12-31T10:00:00+01:00')), BER)).toEqual({
			start: '2026-12-28T00:00:00+01:00',
			end: '2027-01-03T23:59:59+01:00',
		});
	});

	test('the day follows the clock in the zone; "all" has no bounds; unknown values are refused', () => {
		expect(startOf(presetRange('today', BER, at('2026-03-28T23:30:00Z')), BER)).toBe(
			'2026-03-29T00:00:00+01:00',
		);
		expect(startOf(presetRange('today', BER, at('2026-03-28T22:30:00Z')), BER)).toBe(
			'2026-03-28T00:00:00+01:00',
		);
		expect(presetRange('all', SCL)).toBeUndefined();
		expect(() => presetRange('lastMonth', SCL)).toThrow(DateInputError);
		expect(() => presetRange('today', 'Mars/Olympus')).toThrow(/not a known IANA time zone/);
	});

	test('without a clock it uses the current date in the zone', () => {
		const expected = DateTime.now().setZone(SCL).toFormat('yyyy-MM-dd');
		expect(startOf(presetRange('today', SCL), SCL)).toMatch(new RegExp(`^${expected}T0[01]:00:00`));
	});
});

describe('toOffsetIso (reschedule)', () => {
	test('a wall clock without offset gets the offset the zone has on that date', () => {
		expect(toOffsetIso('2026-09-05T10:00:00', SCL)).toBe('2026-09-05T10:00:00-04:00');
		expect(toOffsetIso('2026-09-07T10:00:00', SCL)).toBe('2026-09-07T10:00:00-03:00');
		expect(toOffsetIso('2026-03-28T10:00', BER)).toBe('2026-03-28T10:00:00+01:00');
		expect(toOffsetIso('2026-03-30 10:00:00', BER)).toBe('2026-03-30T10:00:00+02:00');
	});

	test('a value with an offset keeps its instant and is written in the zone', () => {
		expect(toOffsetIso('2026-09-07T13:00:00Z', SCL)).toBe('2026-09-07T10:00:00-03:00');
		expect(toOffsetIso('2026-09-07T15:00:00+02:00', SCL)).toBe('2026-09-07T10:00:00-03:00');
		expect(toOffsetIso('2026-09-07T13:00:00.250Z', SCL)).toBe('2026-09-07T10:00:00.250-03:00');
	});

	test('Luxon DateTime, a DateTime of another luxon copy, a JS Date and epoch ms', () => {
		const berlin = DateTime.fromISO('2026-10-25T12:00:00', { zone: BER });
		expect(toOffsetIso(berlin, SCL)).toBe('2026-10-25T08:00:00-03:00');
		const foreign = { isLuxonDateTime: true, toISO: () => '2026-10-25T12:00:00.000+01:00' };
		expect(toOffsetIso(foreign, BER)).toBe('2026-10-25T12:00:00+01:00');
		expect(toOffsetIso(new Date('2026-01-15T12:00:00Z'), SCL)).toBe('2026-01-15T09:00:00-03:00');
		expect(toOffsetIso(Date.parse('2026-07-15T12:00:00Z'), SCL)).toBe('2026-07-15T08:00:00-04:00');
	});

	test('a wall-clock time the zone skips is refused; a repeated one is accepted', () => {
		expect(() => toOffsetIso('2026-09-06T00:30:00', SCL)).toThrow(
			/does not exist in America\/Santiago/,
		);
		expect(() => toOffsetIso('2026-03-29T02:30:00', BER)).toThrow(DateInputError);
		expect(toOffsetIso('2026-10-25T02:30:00', BER)).toMatch(/^2026-10-25T02:30:00\+0[12]:00$/);
	});

	test('unparsable values are refused with what was expected', () => {
		for (const bad of [
			'next tuesday',
			'2026-13-40T10:00:00',
			'',
			'   ',
			undefined,
			null,
			{},
			[],
			NaN,
			true,
		]) {
			expect(() => toOffsetIso(bad, SCL)).toThrow(DateInputError);
		}
		expect(() => toOffsetIso('tomorrow at 5', SCL)).toThrow(/expected a date such as 2026-03-10/);
	});
});

describe('toInstant (window bounds)', () => {
	test('a date alone is its day: from its first instant, or until 23:59:59', () => {
		expect(iso(toInstant('2026-09-06', SCL, 'start'), SCL)).toBe('2026-09-06T01:00:00-03:00');
		expect(iso(toInstant('2026-09-06', SCL, 'end'), SCL)).toBe('2026-09-06T23:59:59-03:00');
		expect(iso(toInstant('2026-03-10', BER, 'start'), BER)).toBe('2026-03-10T00:00:00+01:00');
	});

	test('a value with an offset is that instant; without, wall clock in the zone', () => {
		expect(toInstant('2026-03-10T10:00:00Z', SCL)).toBe(Date.parse('2026-03-10T10:00:00Z'));
		expect(iso(toInstant('2026-03-10T10:00:00.000', BER), BER)).toBe('2026-03-10T10:00:00+01:00');
		expect(toInstant(DateTime.fromISO('2026-06-01T12:00:00Z'), BER, 'end')).toBe(
			Date.parse('2026-06-01T12:00:00Z'),
		);
	});

	test('a typed time the zone repeats holds both of its instants: its first as a start, its second as an end', () => {
		expect(iso(toInstant('2026-04-04T23:30:00', SCL, 'start'), SCL)).toBe(
			'2026-04-04T23:30:00-03:00',
		);
		expect(iso(toInstant('2026-04-04T23:30:00', SCL, 'end'), SCL)).toBe(
			'2026-04-04T23:30:00-04:00',
		);
		expect(iso(toInstant('2026-10-25T02:30:00', BER, 'start'), BER)).toBe(
			'2026-10-25T02:30:00+02:00',
		);
		expect(iso(toInstant('2026-10-25T02:30:00', BER, 'end'), BER)).toBe(
			'2026-10-25T02:30:00+01:00',
		);
	});

	test('bad values and times the zone skips are refused', () => {
		expect(() => toInstant('2026-02-30', SCL)).toThrow(DateInputError);
		expect(() => toInstant('yesterday', SCL)).toThrow(DateInputError);
		expect(() => toInstant('2026-09-06T00:30:00', SCL, 'end')).toThrow(
			/does not exist in America\/Santiago/,
		);
	});

	test('a time without its date is refused, not read as that time today', () => {
		for (const text of [
			'07',
			'07:30',
			'10:00:00',
			'07:30:00Z',
			'07:30+02:00',
			'073000',
			'10:00:00 +0100',
		]) {
			expect(() => toInstant(text, SCL)).toThrow(DateInputError);
		}
		// what starts with its year is still read: ISO 8601 basic format, a year alone, SQL-like text
		expect(iso(toInstant('20260310T100000', SCL), SCL)).toBe('2026-03-10T10:00:00-03:00');
		expect(iso(toInstant('2026', SCL), SCL)).toBe('2026-01-01T00:00:00-03:00');
		expect(iso(toInstant('2026-03-10 10:00:00', SCL), SCL)).toBe('2026-03-10T10:00:00-03:00');
	});
});

describe('window edges in the account zone (dateWindow)', () => {
	const ms = (text: string) => Date.parse(text);

	test('a wall-clock time is clear, repeated or skipped', () => {
		const local = (text: string) => Date.parse(`${text}Z`);
		expect(wallClockReadings(local('2026-04-04T22:30:00'), SCL).kind).toBe('clear');
		expect(wallClockReadings(local('2026-04-04T23:30:00'), SCL)).toEqual({
			earlier: ms('2026-04-04T23:30:00-03:00'),
			later: ms('2026-04-04T23:30:00-04:00'),
			kind: 'repeated',
		});
		expect(wallClockReadings(local('2026-09-06T00:30:00'), SCL)).toEqual({
			earlier: ms('2026-09-05T23:30:00-04:00'),
			later: ms('2026-09-06T01:30:00-03:00'),
			kind: 'skipped',
		});
		expect(wallClockReadings(local('2026-10-25T02:30:00'), BER).kind).toBe('repeated');
		expect(wallClockReadings(local('2026-03-29T02:30:00'), BER).kind).toBe('skipped');
	});

	test('the same instants, written in another zone', () => {
		const berlinToday = presetRange('today', BER, at('2026-03-10T12:00:00+01:00'))!;
		expect(startWindowQuery(berlinToday, SCL, SCL)).toEqual({
			start_date: '2026-03-09T20:00:00',
			end_date: '2026-03-10T19:59:59',
		});
		expect(startWindowQuery({ from: berlinToday.from }, SCL, SCL)).toEqual({
			start_date: '2026-03-09T20:00:00',
		});
		expect(startWindowQuery({}, SCL, SCL)).toEqual({});
	});

	test('an edge in a repeated hour moves outward past it: the lower one before its first occurrence, the upper one after its second', () => {
		for (const instant of [
			'2026-04-04T23:00:00-03:00',
			'2026-04-04T23:30:00-03:00',
			'2026-04-04T23:59:59-04:00',
			'2026-04-04T23:00:00-04:00',
		]) {
			const lower = edgeWallClock(ms(instant), SCL, 'lower');
			const upper = edgeWallClock(ms(instant), SCL, 'upper');
			// Each is a time Santiago shows once, at or beyond the edge whichever way a parser could read it.
			for (const edge of [lower, upper])
				expect(wallClockReadings(Date.parse(`${edge}Z`), SCL).kind).toBe('clear');
			expect(DateTime.fromISO(lower, { zone: SCL }).toMillis()).toBeLessThanOrEqual(ms(instant));
			expect(DateTime.fromISO(upper, { zone: SCL }).toMillis()).toBeGreaterThanOrEqual(ms(instant));
			expect(lower < '2026-04-04T23:00:00').toBe(true);
			expect(upper >= '2026-04-05T00:00:00').toBe(true);
		}
		expect(edgeWallClock(ms('2026-04-04T22:59:59-03:00'), SCL, 'upper')).toBe(
			'2026-04-04T22:59:59',
		);
		expect(edgeWallClock(ms('2026-04-05T00:00:00-04:00'), SCL, 'lower')).toBe(
			'2026-04-05T00:00:00',
		);
	});

	test('edges go to whole seconds outward; a skipped hour needs no move (no instant shows it)', () => {
		expect(edgeWallClock(ms('2026-03-10T10:00:00.400-03:00'), SCL, 'lower')).toBe(
			'2026-03-10T10:00:00',
		);
		expect(edgeWallClock(ms('2026-03-10T10:00:00.400-03:00'), SCL, 'upper')).toBe(
			'2026-03-10T10:00:01',
		);
		expect(edgeWallClock(ms('2026-09-06T01:00:00-03:00'), SCL, 'lower')).toBe(
			'2026-09-06T01:00:00',
		);
		expect(edgeWallClock(ms('2026-09-05T23:59:59-04:00'), SCL, 'upper')).toBe(
			'2026-09-05T23:59:59',
		);
	});

	test("the cut reads each record's own start: with an offset, without one in the account zone, never an unreadable one", () => {
		const window = { from: ms('2026-04-04T23:30:00-04:00'), to: ms('2026-04-05T01:00:00-04:00') };
		expect(inWindow(window, '2026-04-04T23:30:00-03:00', SCL)).toBe(false);
		expect(inWindow(window, '2026-04-04T23:30:00-04:00', SCL)).toBe(true);
		expect(inWindow(window, '2026-04-05T05:00:00Z', SCL)).toBe(true);
		expect(inWindow(window, '2026-04-05T00:30:00', SCL)).toBe(true);
		expect(inWindow(window, '2026-04-05T01:00:00.001-04:00', SCL)).toBe(false);
		for (const bad of [undefined, null, 42, '', 'soon'])
			expect(inWindow(window, bad, SCL)).toBe(false);
		expect(inWindow({}, '2026-04-05T00:30:00-04:00', SCL)).toBe(true);
		expect(startInstant('2026-04-05T00:30:00-04', SCL)).toBe(ms('2026-04-05T04:30:00Z'));
	});
});

describe('toDateTime', () => {
	test('keeps the offset of a value that has one', () => {
		expect(toDateTime('2026-03-10T10:00:00+05:30', SCL).offset).toBe(330);
		expect(toDateTime('2026-03-10T10:00:00', SCL).zoneName).toBe(SCL);
	});
});
