/**
 * The polling trigger against services that choose differently where the spec is silent, in ways the sandbox does
 * not: a small fake service on loopback whose list leaves out cancelled appointments, ignores the date filters,
 * and forgets appointments (404). The trigger must give the same events, at the documented cost.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code, never shipped: a fake service over http */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startPollingHarness } from '../helpers/polling';

const TOKEN = 'fake-service-token';

interface Appointment {
	appointment_key: string;
	search_code: string;
	status: string;
	start_date: string;
}

const DAY = 86_400_000;
const records = new Map<string, Appointment>();
const requests: string[] = [];
let server: Server;
let baseUrl: string;

function appointment(key: string, inDays: number): Appointment {
	return { appointment_key: key, search_code: key.toUpperCase(), status: 'CONFIRMED', start_date: new Date(Date.now() + inDays * DAY).toISOString() };
}

beforeAll(async () => {
	server = createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://x');
		requests.push(`${req.method} ${url.pathname}`);
		const send = (status: number, body: unknown) => {
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(JSON.stringify(body));
		};
		if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(401, { detail: 'no' });
		if (url.pathname === '/api/v3/appointments/') {
			// Date filters ignored, cancelled ones left out, a bare array: all allowed by the spec.
			return send(200, [...records.values()].filter((a) => !a.status.startsWith('CANCELED')));
		}
		const key = /^\/api\/v3\/appointments\/([^/]+)\/$/.exec(url.pathname)?.[1];
		const found = key === undefined ? undefined : records.get(decodeURIComponent(key));
		return found ? send(200, found) : send(404, { detail: 'Not found.' });
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	await new Promise((resolve) => server.close(resolve));
});

test('a list that hides cancelled appointments, ignores the date filters and forgets some: the same events, each once', async () => {
	records.clear();
	for (const [key, days] of [['a', 1], ['b', 2], ['c', 3], ['far', 90], ['old', -40]] as const) records.set(key, appointment(key, days));
	const h = startPollingHarness({
		credentials: { baseUrl, accessToken: TOKEN },
		parameters: { events: ['appointment.created', 'appointment.updated', 'appointment.canceled'], options: {} },
	});
	await h.activate();
	const watched = (h.saved()['node:Appointments Polling Trigger'] as { state: { entries: string } }).state.entries;
	expect(watched.split(';').map((e) => e.split(',')[0]).sort()).toEqual(['a', 'b', 'c']); // outside the window: not watched

	records.get('b')!.status = 'CANCELED_CLIENT'; // the list stops showing it: read by key
	records.delete('c'); // the service forgets it: 404
	records.get('far')!.status = 'PENDING'; // outside the window: no event
	records.set('d', appointment('d', 4));
	requests.length = 0;
	const { items, error } = await h.poll();
	expect(error).toBeUndefined();
	expect(items!.map((i) => [i.json.event, i.json.data])).toEqual([
		['appointment.created', records.get('d')],
		['appointment.canceled', records.get('b')],
		['appointment.canceled', { appointment_key: 'c', canceled: true }],
	]);
	expect(requests.sort()).toEqual(['GET /api/v3/appointments/', 'GET /api/v3/appointments/b/', 'GET /api/v3/appointments/c/']);

	// Cancelled and forgotten ones are not read again: one list request per poll.
	requests.length = 0;
	expect(await h.poll()).toEqual({});
	expect(requests).toEqual(['GET /api/v3/appointments/']);
});
