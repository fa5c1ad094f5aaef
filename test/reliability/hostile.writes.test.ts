/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-hardcoded-secrets, @typescript-eslint/no-explicit-any -- test code, never shipped: timers drive a fake service, the tokens are made up */
/**
 * Issue 10: the nodes against an unfriendly service, the writes a user would lose or repeat: Webhook Create adopting
 * someone else's subscription, Cancel e-mailing twice, webhook keys of another type, field names in 400 messages,
 * retries. Each runs the real node in n8n's WorkflowExecute over loopback HTTP, against the sandbox where it can
 * misbehave that way and against a small fake service where it cannot. The answers: hostile.answers.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { Appointments } from '../../nodes/Appointments/Appointments.node';
import { runNode } from '../helpers/n8n';
import { sendJson } from '../helpers/fakeService';
import { TestSandbox, TOKEN } from './common';
import {
	APPOINTMENT,
	EVENTS,
	fake,
	HOOK_URL,
	KEY,
	OPERATIONS_WITH_ONE_RECORD,
	run,
	useFakeService,
} from './hostile';

useFakeService();

describe('7. Webhook Create adopts only its own subscription', () => {
	it('after a reset, an identical subscription that existed before the POST is not returned as the new one', async () => {
		const list: IDataObject[] = [{ webhook_key: 'someone-elses', url: HOOK_URL, events: EVENTS }];
		let posts = 0;
		fake.handle = (req, res, raw) => {
			if (req.method === 'GET') return sendJson(res, 200, { results: list });
			if (++posts === 1) return void raw.socket.destroy(); // lost: nothing stored
			const record = { webhook_key: 'ours', ...(JSON.parse(req.body) as IDataObject) };
			list.push(record);
			sendJson(res, 201, record);
		};
		const r = await run({
			...OPERATIONS_WITH_ONE_RECORD[4][1],
			advanced: { maxRetryWaitSeconds: 2 },
		});
		expect(r.error).toBeUndefined();
		expect(r.items[0].map((i) => i.json.webhook_key)).toEqual(['ours']);
		expect(posts).toBe(2);
	});
	it('a subscription stored by the POST whose answer was lost is adopted, the older identical one is not', async () => {
		const list: IDataObject[] = [{ webhook_key: 'someone-elses', url: HOOK_URL, events: EVENTS }];
		let posts = 0;
		fake.handle = (req, res, raw) => {
			if (req.method === 'GET') return sendJson(res, 200, { results: list });
			posts++;
			list.push({ webhook_key: 'ours', ...(JSON.parse(req.body) as IDataObject) });
			raw.socket.destroy(); // stored, answer lost
		};
		const r = await run({
			...OPERATIONS_WITH_ONE_RECORD[4][1],
			advanced: { maxRetryWaitSeconds: 2 },
		});
		expect(r.error).toBeUndefined();
		expect(r.items[0].map((i) => i.json.webhook_key)).toEqual(['ours']);
		expect(posts).toBe(1);
	});
});

describe('9. Cancel never e-mails twice (sandbox)', () => {
	let sb: TestSandbox;
	let key: string;
	beforeAll(async () => {
		sb = await TestSandbox.start({ seed: 20, seedValue: 9 });
	});
	afterAll(async () => {
		await sb?.close();
	});
	beforeEach(async () => {
		await sb.reset(20, 9);
		await sb.admin('DELETE', '/__sandbox/emails/');
		const list = await sb.api('GET', 'appointments/?is_cancelled=false');
		key = (list.body.results as Array<{ appointment_key: string }>)[0].appointment_key;
	});
	const cancel = async () =>
		await runNode({
			parameters: {
				resource: 'appointment',
				operation: 'cancel',
				appointmentKey: key,
				sendEmail: true,
				advanced: { maxRetryWaitSeconds: 5 },
			},
			credentials: { baseUrl: sb.url, accessToken: TOKEN },
		});

	it.each([
		['email-again', { reset: true }],
		['email-again', { status: 502 }],
		['not-found', { reset: true }],
		['not-found', { status: 500 }],
	])(
		'repeatCancel %s, the DELETE cancels and then fails (%j): one DELETE, one e-mail, the appointment cancelled',
		async (repeatCancel, failure) => {
			await sb.config({ repeatCancel });
			await sb.fault({ ...failure, phase: 'after', match: { method: 'DELETE' } });
			await sb.clearRequests();
			const r = await cancel();
			expect(r.error).toBeUndefined();
			expect(r.items[0][0].json).toMatchObject({ appointment_key: key });
			expect((await sb.emails()).filter((e) => e.appointment_key === key)).toHaveLength(1);
			expect((await sb.requests()).filter((q) => q.method === 'DELETE')).toHaveLength(1);
			expect((await sb.api('GET', `appointments/${key}/`)).body.status).toMatch(/^CANCEL/);
		},
	);

	it('a DELETE that failed before it was processed is sent again once the appointment reads as still active', async () => {
		await sb.config({ repeatCancel: 'email-again' });
		await sb.fault({ status: 502, phase: 'before', match: { method: 'DELETE' } });
		await sb.clearRequests();
		const r = await cancel();
		expect(r.error).toBeUndefined();
		expect((await sb.emails()).filter((e) => e.appointment_key === key)).toHaveLength(1);
		expect((await sb.requests()).map((q) => q.method)).toEqual(['GET', 'DELETE', 'GET', 'DELETE']);
	});

	const mailbox = async () =>
		(
			(await sb.admin('GET', '/__sandbox/mailbox/')).results as Array<{
				to: string[];
				subject: string;
			}>
		).filter((m) => /was canceled/.test(m.subject));

	it.each(Object.keys(new Appointments().nodeVersions).map(Number))(
		'version %i: the same Cancel run twice against a service that e-mails on every DELETE: one e-mail, the second run says it was already canceled',
		async (version) => {
			await sb.config({ repeatCancel: 'email-again' });
			await sb.admin('DELETE', '/__sandbox/mailbox/');
			const parameters = {
				resource: 'appointment',
				operation: 'cancel',
				appointmentKey: version === 1 ? key : { __rl: true, mode: 'id', value: key },
				sendEmail: true,
			};
			const run = async () =>
				await runNode({
					parameters,
					credentials: { baseUrl: sb.url, accessToken: TOKEN },
					nodeTypeVersion: version,
				});
			const first = await run();
			expect(first.error).toBeUndefined();
			await sb.clearRequests();
			const second = await run();
			expect(second.error).toBeUndefined();
			expect(await mailbox()).toHaveLength(1);
			expect((await sb.emails()).filter((e) => e.appointment_key === key)).toHaveLength(1);
			expect((await sb.requests()).map((q) => q.method)).toEqual(['GET']);
			const out = second.items[0][0].json;
			// Versions before 4 keep their output: the appointment as it is (as the Retry On Fail re-run returned it)
			expect(out).toEqual(
				version >= 4
					? { ...first.items[0][0].json, already_canceled: true }
					: first.items[0][0].json,
			);
			expect(out.status).toBe('CANCELED');
			const hints = (second.run.data.resultData.runData.Node?.[0]?.hints ?? []).map(
				(h) => h.message,
			);
			expect(hints).toEqual([
				'Some appointments were already canceled: they were not canceled again and their clients got no email',
			]);
			expect(first.run.data.resultData.runData.Node?.[0]?.hints ?? []).toEqual([]);
		},
	);
});

describe('9. Cancel reads first: an appointment already cancelled, in any cancelled status, is not cancelled again', () => {
	it('CANCELED_ADMIN, a status the spec does not name: one GET, no DELETE, the appointment as it is', async () => {
		const record = { ...APPOINTMENT, status: 'CANCELED_ADMIN' };
		fake.handle = (req, res) =>
			req.method === 'GET'
				? sendJson(res, 200, record)
				: sendJson(res, 200, { ...record, status: 'CANCELED' });
		const r = await run(
			{ resource: 'appointment', operation: 'cancel', appointmentKey: KEY, sendEmail: true },
			{ nodeTypeVersion: 4 },
		);
		expect(r.error).toBeUndefined();
		expect(r.items[0][0].json).toEqual({ ...record, already_canceled: true }); // node version 4 says so
		expect(fake.requests.map((q) => q.method)).toEqual(['GET']);
	});

	it('a read that is not the appointment fails the item before any DELETE', async () => {
		fake.handle = (req, res) =>
			req.method === 'GET' ? sendJson(res, 200, { detail: 'ok' }) : sendJson(res, 200, APPOINTMENT);
		const r = await run({
			resource: 'appointment',
			operation: 'cancel',
			appointmentKey: KEY,
			sendEmail: true,
		});
		expect(r.error?.message).toMatch(
			/read of appointment .* is not that appointment \(no appointment_key\)/,
		);
		expect(fake.requests.map((q) => q.method)).toEqual(['GET']);
	});
});

describe('9. Cancel: a 404 on the read after an ambiguous DELETE counts as done', () => {
	it('one DELETE, the output says cancelled', async () => {
		let deletes = 0;
		fake.handle = (req, res, raw) => {
			if (req.method === 'DELETE') {
				deletes++;
				return void raw.socket.destroy(); // processed (the service removes it), answer lost
			}
			sendJson(res, 404, { detail: 'Not found.' });
		};
		const r = await run(
			{ resource: 'appointment', operation: 'cancel', appointmentKey: KEY, sendEmail: true },
			{ nodeTypeVersion: 4 },
		);
		expect(r.error).toBeUndefined();
		expect(r.items[0][0].json).toEqual({
			appointment_key: KEY,
			canceled: true,
			already_canceled: false,
		});
		expect(deletes).toBe(1);
		// the first read's 404 leaves it to the DELETE (a mistyped key still fails as not found)
		expect(fake.requests.map((q) => q.method)).toEqual(['GET', 'DELETE', 'GET']);
	});
});

describe('12. one webhook key, one type', () => {
	const record = {
		webhook_key: 100,
		url: HOOK_URL,
		events: EVENTS,
		created_at: '2026-01-01T00:00:00Z',
	};
	it('a service with integer keys: Get Many, Create, Update after 204 and Delete all output 100', async () => {
		const list: IDataObject[] = [];
		fake.handle = (req, res) => {
			if (req.method === 'GET') return sendJson(res, 200, list);
			if (req.method === 'POST') {
				list.push({ ...record });
				return sendJson(res, 201, record);
			}
			res.writeHead(204).end();
		};
		const created = await run(OPERATIONS_WITH_ONE_RECORD[4][1]);
		const listed = await run({ resource: 'webhook', operation: 'getAll', returnAll: true });
		const updated = await run({ ...OPERATIONS_WITH_ONE_RECORD[5][1], webhookKey: '100' });
		const deleted = await run({ resource: 'webhook', operation: 'delete', webhookKey: '100' });
		for (const r of [created, listed, updated, deleted]) {
			expect(r.error).toBeUndefined();
			expect(r.items[0][0].json.webhook_key).toBe(100);
		}
		expect(updated.items[0][0].json).toEqual(record); // created_at kept: read from the list
	});
	it('Update after a 204 of a subscription the list does not show says why', async () => {
		fake.handle = (req, res) =>
			req.method === 'GET' ? sendJson(res, 200, []) : void res.writeHead(204).end();
		const r = await run({ ...OPERATIONS_WITH_ONE_RECORD[5][1], webhookKey: '100' });
		expect(r.error?.message).toMatch(
			/answered 204 without the webhook, and webhook 100 is not in the list, so it cannot be confirmed/,
		);
	});
});

describe('13. field names in 400 messages', () => {
	it('{"errors":[{"field":"events","message":...}]} names the field', async () => {
		fake.handle = (req, res) =>
			req.method === 'GET'
				? sendJson(res, 200, [])
				: sendJson(res, 400, {
						errors: [{ field: 'events', message: 'Unknown or empty events.' }],
					});
		const r = await run(OPERATIONS_WITH_ONE_RECORD[4][1]);
		expect(r.error?.message).toBe(
			'The service rejected the request: events: Unknown or empty events.',
		);
	});
});

describe("retries: the node's own and n8n's Retry On Fail", () => {
	// Versions 1-3: Max Attempts and Retry On Fail multiply; version 4 has only Retry On Fail (faults.retried.test.ts).
	it('Retry On Fail re-runs the node after its own attempts, and the node no longer asks to turn it off', async () => {
		const v3 = { nodeTypeVersion: 3 };
		// 10 ms between n8n's tries: it reads 0 as its default of 1 s
		const retryOnFail = { retryOnFail: true, maxTries: 2, waitBetweenTries: 10 };
		fake.handle = (_req, res) => sendJson(res, 503, { detail: 'busy' });
		const parameters = {
			resource: 'appointment',
			operation: 'get',
			appointmentKey: KEY,
			advanced: { maxAttempts: 2, maxRetryWaitSeconds: 0.1 },
		};
		const alone = await run(parameters, v3);
		expect(alone.error?.message).toMatch(/after 2 attempts/);
		expect(fake.requests).toHaveLength(2);
		fake.requests.length = 0;
		const both = await run(parameters, { ...v3, settings: retryOnFail });
		expect(both.error).toBeDefined();
		expect(fake.requests).toHaveLength(4);
		fake.handle = (_req, res) => sendJson(res, 200, APPOINTMENT);
		const ok = await run(parameters, { ...v3, settings: retryOnFail });
		const hints =
			(ok.run.data.resultData.runData.Node[0] as { hints?: Array<{ message: string }> }).hints ??
			[];
		expect(ok.error).toBeUndefined();
		expect(hints.map((h) => h.message).join()).not.toMatch(/Retry On Fail/);
	});
});
