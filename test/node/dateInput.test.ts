/** Pure date logic: presets with a fixed clock across DST changes, wall clock and offset conversion. */
import { DateTime } from 'luxon';

import {
	DateInputError,
	presetRange,
	toDateTime,
	toOffsetIso,
	toWallClock,
} from '../../nodes/Appointments/shared/dateInput';

const SCL = 'America/Santiago';
const BER = 'Europe/Berlin';
const at = (iso: string) => () => DateTime.fromISO(iso, { setZone: true });

describe('presetRange', () => {
	test('a day is 00:00:00..23:59:59 of its own date, also on the day Santiago skips midnight (2026-09-06)', () => {
		// 00:00-00:59 of 2026-09-06 does not exist in Santiago; startOf('day') would say 01:00.
		expect(presetRange('today', SCL, at('2026-09-06T12:00:00-03:00'))).toEqual({
			start: '2026-09-06T00:00:00',
			end: '2026-09-06T23:59:59',
		});
		expect(presetRange('yesterday', SCL, at('2026-09-07T08:00:00-03:00'))).toEqual({
			start: '2026-09-06T00:00:00',
			end: '2026-09-06T23:59:59',
		});
		expect(presetRange('tomorrow', SCL, at('2026-09-05T22:00:00-04:00'))).toEqual({
			start: '2026-09-06T00:00:00',
			end: '2026-09-06T23:59:59',
		});
	});

	test('"today" follows the local date right before and after the Santiago change', () => {
		// 03:59Z = 23:59 -04 on the 5th; 04:00Z = 01:00 -03 on the 6th.
		expect(presetRange('today', SCL, at('2026-09-06T03:59:00Z'))?.start).toBe(
			'2026-09-05T00:00:00',
		);
		expect(presetRange('today', SCL, at('2026-09-06T04:00:00Z'))?.start).toBe(
			'2026-09-06T00:00:00',
		);
		// Autumn: 23:00-23:59 of 2026-04-04 happens twice; both are still the 4th.
		expect(presetRange('today', SCL, at('2026-04-05T02:30:00Z'))?.start).toBe(
			'2026-04-04T00:00:00',
		);
		expect(presetRange('today', SCL, at('2026-04-05T03:30:00Z'))?.start).toBe(
			'2026-04-04T00:00:00',
		);
		expect(presetRange('today', SCL, at('2026-04-05T04:00:00Z'))?.start).toBe(
			'2026-04-05T00:00:00',
		);
	});

	test('Berlin spring-forward and fall-back days are whole days', () => {
		expect(presetRange('today', BER, at('2026-03-28T23:30:00Z'))).toEqual({
			start: '2026-03-29T00:00:00',
			end: '2026-03-29T23:59:59',
		});
		expect(presetRange('tomorrow', BER, at('2026-03-28T12:00:00Z'))?.start).toBe(
			'2026-03-29T00:00:00',
		);
		expect(presetRange('yesterday', BER, at('2026-10-26T00:30:00+01:00'))).toEqual({
			start: '2026-10-25T00:00:00',
			end: '2026-10-25T23:59:59',
		});
	});

	test('the same instant is a different day in different zones', () => {
		const now = at('2026-03-10T02:00:00Z');
		expect(presetRange('today', SCL, now)?.start).toBe('2026-03-09T00:00:00');
		expect(presetRange('today', BER, now)?.start).toBe('2026-03-10T00:00:00');
	});

	test('this week runs Monday..Sunday and next 7 days is today plus six, across a change', () => {
		// Wednesday 2026-09-02; the week ends on Sunday 2026-09-06, the Santiago change day.
		expect(presetRange('thisWeek', SCL, at('2026-09-02T10:00:00-04:00'))).toEqual({
			start: '2026-08-31T00:00:00',
			end: '2026-09-06T23:59:59',
		});
		// On the Sunday itself the week is still the same one.
		expect(presetRange('thisWeek', SCL, at('2026-09-06T20:00:00-03:00'))?.start).toBe(
			'2026-08-31T00:00:00',
		);
		expect(presetRange('next7Days', SCL, at('2026-09-03T10:00:00-04:00'))).toEqual({
			start: '2026-09-03T00:00:00',
			end: '2026-09-09T23:59:59',
		});
		expect(presetRange('next7Days', BER, at('2026-10-22T10:00:00+02:00'))).toEqual({
			start: '2026-10-22T00:00:00',
			end: '2026-10-28T23:59:59',
		});
		// Across a year end.
		expect(presetRange('thisWeek', BER, at('2026-12-31T10:00:00+01:00'))).toEqual({
			start: '2026-12-28T00:00:00',
			end: '2027-01-03T23:59:59',
		});
	});

	test('the clock may be a Date or epoch milliseconds; "all" has no bounds; unknown values are refused', () => {
		expect(presetRange('today', BER, () => new Date('2026-03-28T23:30:00Z'))?.start).toBe(
			'2026-03-29T00:00:00',
		);
		expect(presetRange('today', BER, () => Date.parse('2026-03-28T22:30:00Z'))?.start).toBe(
			'2026-03-28T00:00:00',
		);
		expect(presetRange('all', SCL)).toBeUndefined();
		expect(() => presetRange('lastMonth', SCL)).toThrow(DateInputError);
		expect(() => presetRange('today', 'Mars/Olympus')).toThrow(/not a known IANA time zone/);
	});

	test('without a clock it uses the current date in the zone', () => {
		const expected = DateTime.now().setZone(SCL).toFormat('yyyy-MM-dd');
		expect(presetRange('today', SCL)?.start).toBe(`${expected}T00:00:00`);
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

describe('toWallClock (filters)', () => {
	test('a date alone is the start or end of that day', () => {
		expect(toWallClock('2026-09-06', SCL, 'start')).toBe('2026-09-06T00:00:00');
		expect(toWallClock('2026-09-06', SCL, 'end')).toBe('2026-09-06T23:59:59');
	});

	test('a value with an offset becomes the wall clock of the zone; without offset it stays as typed', () => {
		expect(toWallClock('2026-03-10T10:00:00Z', SCL)).toBe('2026-03-10T07:00:00');
		expect(toWallClock('2026-03-10T10:00:00Z', BER)).toBe('2026-03-10T11:00:00');
		expect(toWallClock('2026-03-10T10:00:00.000', BER)).toBe('2026-03-10T10:00:00');
		expect(toWallClock(DateTime.fromISO('2026-06-01T12:00:00Z'), BER)).toBe('2026-06-01T14:00:00');
	});

	test('bad values are refused', () => {
		expect(() => toWallClock('2026-02-30', SCL)).toThrow(DateInputError);
		expect(() => toWallClock('yesterday', SCL)).toThrow(DateInputError);
	});
});

describe('toDateTime', () => {
	test('keeps the offset of a value that has one', () => {
		expect(toDateTime('2026-03-10T10:00:00+05:30', SCL).offset).toBe(330);
		expect(toDateTime('2026-03-10T10:00:00', SCL).zoneName).toBe(SCL);
	});
});
