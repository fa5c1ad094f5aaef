/**
 * The package's vocabulary (nodes/…/shared/constants.ts, shared by the action node and both triggers) and the
 * sandbox's (sandbox/vocabulary.ts) name the same statuses and events, and agree on which statuses are cancelled.
 */
import {
	CHANGE_EVENTS,
	EVENTS,
	STATUS_VALUES,
	STATUSES,
	TIME_EVENTS,
} from '../../nodes/Appointments/shared/constants.js';
import { isCancelled } from '../../nodes/Appointments/shared/appointmentRecord.js';
import * as sandbox from '../../sandbox/vocabulary';

test('the same statuses, each once', () => {
	expect([...STATUS_VALUES].sort()).toEqual([...sandbox.STATUSES].sort());
	expect(new Set(STATUSES.map((s) => s.name)).size).toBe(STATUSES.length);
});

test('a status is cancelled for the package exactly when it is for the sandbox', () => {
	for (const status of sandbox.STATUSES)
		expect([status, isCancelled({ status })]).toEqual([
			status,
			sandbox.CANCELLED_STATUSES.has(status),
		]);
});

test("the events the service sends are the webhook trigger's, and the polling trigger offers them too", () => {
	const webhook = EVENTS.map((e) => e.value);
	expect([...webhook].sort()).toEqual([...sandbox.EVENTS].sort());
	const polling = [...CHANGE_EVENTS, ...TIME_EVENTS].map((e) => e.value);
	for (const event of sandbox.EVENTS) expect(polling).toContain(event);
	expect(new Set(polling).size).toBe(polling.length);
});
