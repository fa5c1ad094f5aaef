/**
 * Polls of one workflow that run at the same time: n8n's in-memory engine starts a poll on its schedule whether or
 * not the last one ended (a slow poll, two Poll Times at the same minute), and its durable scheduler runs each poll
 * on a workflow built afresh from the saved one, occasionally twice. Whatever two polls do at the same time in one
 * process, each change is emitted once in total, and neither fails for the other.
 */
import { startPollingHarness, type PollingHarness, type PollResult } from '../helpers/polling';
import {
	POLLING_SERVICE_TOKEN,
	startPollingService,
	type PollingService,
} from '../helpers/pollingService';
import { eventNames } from './common';

const DAY = 86_400_000;
const ZONE = 'America/Santiago';
const EVENTS = [
	'appointment.created',
	'appointment.updated',
	'appointment.canceled',
	'appointment.starting_soon',
];

let service: PollingService;

beforeAll(async () => {
	service = await startPollingService({ zone: ZONE, pageSize: 2 });
});
afterAll(async () => {
	await service.close();
});

const inDays = (days: number) => Date.now() + days * DAY;
const harness = (): PollingHarness =>
	startPollingHarness({
		credentials: { baseUrl: service.url, accessToken: POLLING_SERVICE_TOKEN },
		parameters: { events: EVENTS, leadTime: 3 * 1440, options: {} },
		timezone: ZONE,
	});
const together = (results: PollResult[]) => {
	for (const r of results) expect(r.error).toBeUndefined();
	return eventNames(results.flatMap((r) => r.items ?? []));
};

test('two polls started together on one workflow: each change once in total, whichever emits it', async () => {
	service.records.clear();
	service.add('a', inDays(1));
	service.add('b', inDays(5));
	service.add('c', inDays(6));
	const h = harness();
	await h.activate();
	service.set('b', { status: 'PENDING' });
	service.set('c', { status: 'CANCELED' });
	service.add('d', inDays(2));
	expect(together(await Promise.all([h.poll(), h.poll()]))).toEqual([
		'appointment.canceled c',
		'appointment.created d',
		'appointment.starting_soon d',
		'appointment.updated b',
	]);
	service.remove('a');
	expect(together(await Promise.all([h.poll(), h.poll(), h.poll()]))).toEqual([
		'appointment.canceled a',
	]);
	expect(together(await Promise.all([h.poll(), h.poll()]))).toEqual([]);
});

test("the durable scheduler's way: two polls, each on a copy of the saved workflow, run at once: each change once", async () => {
	service.records.clear();
	service.add('a', inDays(4));
	service.add('b', inDays(5));
	const h = harness();
	await h.activate();
	service.set('a', { start: inDays(4.5) });
	service.add('c', inDays(2));
	expect(together(await Promise.all([h.pollSaved(), h.pollSaved()]))).toEqual([
		'appointment.created c',
		'appointment.starting_soon c',
		'appointment.updated a',
	]);
	// The one that emitted saved its state: a later poll built from it finds nothing new.
	expect(together([await h.pollSaved()])).toEqual([]);
	service.set('b', { status: 'NO_SHOW' });
	expect(together(await Promise.all([h.pollSaved(), h.pollSaved(), h.pollSaved()]))).toEqual([
		'appointment.updated b',
	]);
});

test('a poll that fails leaves the one waiting behind it to compare with the last state that was committed', async () => {
	service.records.clear();
	service.add('a', inDays(4));
	const h = harness();
	await h.activate();
	service.set('a', { status: 'PENDING' });
	service.fault = { on: 'list', answer: 'html', times: 1 };
	const [failed, second] = await Promise.all([h.poll(), h.poll()]);
	expect(failed.error).toBeDefined();
	expect(eventNames(second.items)).toEqual(['appointment.updated a']);
});
