/**
 * What every user expects of the node with many items: they run at the same time (never more than Concurrency),
 * and the output keeps input order and pairing, failures included.
 */
import type { IDataObject } from 'n8n-workflow';

import { sendJson, startFakeService } from '../helpers/fakeService';
import { runNode } from '../helpers/n8n';
import { useBehaviourSandbox } from './behaviourSandbox';
import { pairing, run, type Sandbox } from './helpers';

let sb: Sandbox;
let keys: string[];

useBehaviourSandbox((started) => ({ sb, keys } = started));

describe('concurrency', () => {
	// A fake service that counts the PATCHes in flight and holds every answer until `gate` of them are in flight
	// at once, or until `patienceMs` passed (so a node that sends one at a time is not stuck: it fails, or passes
	// the sequential test, on the counts, never on a duration).
	async function countingService(gate: number, patienceMs: number) {
		const service = await startFakeService();
		const seen = { inFlight: 0, max: 0, paths: [] as string[] };
		let open: () => void = () => undefined;
		const opened = new Promise<void>((resolve) => (open = resolve));
		const safety = setTimeout(open, patienceMs);
		service.handle = async (req, res) => {
			seen.paths.push(req.path);
			seen.inFlight++;
			seen.max = Math.max(seen.max, seen.inFlight);
			if (seen.inFlight >= gate) open();
			await opened;
			seen.inFlight--;
			const key = req.path.split('/')[4];
			sendJson(res, 200, {
				appointment_key: key,
				status: (JSON.parse(req.body) as IDataObject).status,
			});
		};
		return { service, seen, close: async () => (clearTimeout(safety), await service.close()) };
	}

	test('items run at the same time (never more than Concurrency), output keeps input order and pairing', async () => {
		const { service, seen, close } = await countingService(4, 5000);
		try {
			const result = await runNode({
				parameters: {
					resource: 'appointment',
					operation: 'updateStatus',
					appointmentKey: '={{ $json.key }}',
					status: 'ATTENDED',
					advanced: { concurrency: 4 },
				},
				credentials: { baseUrl: service.url, accessToken: 'test-token' },
				input: keys.slice(0, 8).map((key) => ({ key })),
			});
			expect(result.error).toBeUndefined();
			const items = result.items[0];
			expect(items.map((i) => i.json.appointment_key)).toEqual(keys.slice(0, 8));
			expect(items.every((i) => i.json.status === 'ATTENDED')).toBe(true);
			expect(pairing(items)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
			expect(seen.paths).toHaveLength(8);
			expect(seen.max).toBe(4);
		} finally {
			await close();
		}
	});

	test('concurrency 1 sends one item after the other', async () => {
		const { service, seen, close } = await countingService(2, 300);
		try {
			const result = await runNode({
				parameters: {
					resource: 'appointment',
					operation: 'updateStatus',
					appointmentKey: '={{ $json.key }}',
					status: 'PENDING',
				},
				credentials: { baseUrl: service.url, accessToken: 'test-token' },
				input: keys.slice(0, 3).map((key) => ({ key })),
			});
			expect(result.error).toBeUndefined();
			expect(seen.paths).toEqual(keys.slice(0, 3).map((k) => `/api/v3/appointments/${k}/`));
			expect(seen.max).toBe(1);
		} finally {
			await close();
		}
	});

	test('with continue on fail, failures keep their place', async () => {
		const input = [keys[0], '00000000-0000-4000-8000-000000000000', keys[2], keys[3], 'bad'].map(
			(key) => ({ key }),
		);
		const result = await run(
			sb,
			{
				resource: 'appointment',
				operation: 'cancel',
				appointmentKey: '={{ $json.key }}',
				advanced: { concurrency: 3 },
			},
			{ input, continueOnFail: true },
		);
		const items = result.items[0];
		expect(items.map((i) => i.json.appointment_key ?? i.json.error)).toEqual([
			keys[0],
			'Appointment 00000000-0000-4000-8000-000000000000 not found',
			keys[2],
			keys[3],
			expect.stringMatching(/\(item 4\)/),
		]);
		expect(pairing(items)).toEqual([0, 1, 2, 3, 4]);
	});
});
