/**
 * A service for the webhook trigger's tests where the sandbox cannot hold an answer back (fakeService.ts): it keeps
 * subscriptions (list, create, delete) so a harness can publish, and answers each re-read of an appointment with
 * what the test's `read` gives, when it gives it.
 *
 *   const s = await startTriggerService()
 *   s.read = async (key) => ({ status: 200, body: record })   the next re-reads' answer (default 404)
 *   s.url, s.requests, await s.close()
 */
import { randomUUID } from 'node:crypto';

import { sendJson, startFakeService, type FakeService } from './fakeService';

export interface TriggerService extends FakeService {
	read: (appointmentKey: string) => Promise<{ status: number; body: unknown }>;
}

export async function startTriggerService(): Promise<TriggerService> {
	const service = (await startFakeService()) as TriggerService;
	const webhooks: Array<Record<string, unknown>> = [];
	service.read = async () => ({ status: 404, body: { detail: 'Not found.' } });
	service.handle = async (req, res) => {
		const appointment = /^\/api\/v3\/appointments\/([^/]+)\/$/.exec(req.path);
		if (req.method === 'GET' && appointment) {
			const { status, body } = await service.read(decodeURIComponent(appointment[1]));
			return sendJson(res, status, body);
		}
		if (req.path === '/api/v3/webhooks/' && req.method === 'GET')
			return sendJson(res, 200, {
				count: webhooks.length,
				next: null,
				previous: null,
				results: webhooks,
			});
		if (req.path === '/api/v3/webhooks/' && req.method === 'POST') {
			const webhook = { webhook_key: randomUUID(), ...(JSON.parse(req.body) as object) };
			webhooks.push(webhook);
			return sendJson(res, 201, webhook);
		}
		const key = /^\/api\/v3\/webhooks\/([^/]+)\/$/.exec(req.path)?.[1];
		const at = webhooks.findIndex((w) => w.webhook_key === key);
		if (req.method !== 'DELETE' || at < 0) return sendJson(res, 404, { detail: 'Not found.' });
		webhooks.splice(at, 1);
		res.writeHead(204).end();
	};
	return service;
}
