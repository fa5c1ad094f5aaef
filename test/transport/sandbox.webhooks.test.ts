/**
 * The transport inside n8n-core's WorkflowExecute against the sandbox over real HTTP on loopback: the webhook
 * create sent again when the failed attempt stored nothing, deletes, and mutations; the token never leaking. A
 * create whose answer was lost after the service stored it: test/reliability/faults.creates.test.ts.
 */
import {
	admin,
	config,
	fault,
	records,
	requests,
	run,
	useTransportSandbox,
} from './sandboxTransport';

useTransportSandbox();

describe('webhook create is never doubled', () => {
	const listFor = async (url: string) => {
		const all = await admin<any>('GET', '/__sandbox/webhooks/');
		const list = Array.isArray(all) ? all : (all.webhooks ?? all.results);
		return list.filter((w: any) => w.url === url);
	};
	it('sends the create again when the failed attempt stored nothing', async () => {
		await fault({
			phase: 'before',
			status: 500,
			match: { method: 'POST', path: '/api/v3/webhooks/' },
		});
		const r = await run({
			call: 'createWebhook',
			body: JSON.stringify({ url: 'https://hooks.test/w', events: ['appointment.updated'] }),
		});
		expect(r.error).toBeUndefined();
		expect(await listFor('https://hooks.test/w')).toHaveLength(1);
		expect((await requests()).filter((q) => q.method === 'POST')).toHaveLength(2);
	});
});

describe('webhook delete', () => {
	it('treats 404 as success only when asked, or when a failed first attempt did the delete', async () => {
		const created = records(
			await run({
				call: 'createWebhook',
				body: JSON.stringify({ url: 'https://hooks.test/d', events: ['appointment.created'] }),
			}),
		)[0];
		let r = await run({ call: 'deleteWebhook', key: 'gone-key' });
		expect(r.error?.message).toBe('Webhook gone-key not found');
		r = await run({ call: 'deleteWebhook', key: 'gone-key', notFoundIsSuccess: true });
		expect(records(r)[0]).toEqual({ deleted: true, webhook_key: 'gone-key', alreadyGone: true });
		await fault({ phase: 'after', status: 500, match: { method: 'DELETE' } });
		r = await run({ call: 'deleteWebhook', key: created.webhook_key });
		expect(records(r)[0]).toEqual({
			deleted: true,
			webhook_key: created.webhook_key,
			alreadyGone: true,
		});
	});
});

describe('mutations', () => {
	it('returns the record from the body, or reads it back after a 204', async () => {
		const key = records(await run({ call: 'paginate', path: 'appointments/', limit: 1 }))[0]
			.appointment_key;
		for (const mutationResponse of ['body', 'empty']) {
			await config({ mutationResponse });
			await admin('DELETE', '/__sandbox/requests/');
			const r = await run({
				call: 'mutateAppointment',
				method: 'PATCH',
				path: `appointments/${key}/`,
				key,
				body: JSON.stringify({ status: 'ATTENDED' }),
			});
			expect(r.error).toBeUndefined();
			expect(records(r)[0]).toMatchObject({ appointment_key: key, status: 'ATTENDED' });
			const methods = (await requests()).map((q) => q.method);
			expect(methods).toEqual(mutationResponse === 'body' ? ['PATCH'] : ['PATCH', 'GET']);
		}
	});
	it('repeats an idempotent PATCH after a 502', async () => {
		const key = records(await run({ call: 'paginate', path: 'appointments/', limit: 1 }))[0]
			.appointment_key;
		await fault({ status: 502, phase: 'after', match: { method: 'PATCH' } });
		const r = await run({
			call: 'mutateAppointment',
			method: 'PATCH',
			path: `appointments/${key}/`,
			key,
			body: JSON.stringify({ status: 'NO_SHOW' }),
		});
		expect(records(r)[0]).toMatchObject({ appointment_key: key, status: 'NO_SHOW' });
	});
});
