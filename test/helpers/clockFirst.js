/**
 * Test order for the compatibility runs (jest.compat.config.js, two workers): the durable scheduler's file first.
 * It mostly waits for the clock (a scheduled minute, then polls), so the other worker runs the remaining files
 * meanwhile; in jest's own order (largest file first when it has no timings yet) it came last and ran alone.
 */
const Sequencer = require('@jest/test-sequencer').default;

class ClockFirst extends Sequencer {
	sort(tests) {
		const waitsForTheClock = (t) => (/[\\/]scheduler\.test\.ts$/.test(t.path) ? 0 : 1);
		return [...super.sort(tests)].sort((a, b) => waitsForTheClock(a) - waitsForTheClock(b));
	}
}

module.exports = ClockFirst;
