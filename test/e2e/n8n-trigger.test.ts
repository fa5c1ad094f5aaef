/**
 * End-to-end: the Appointments Trigger in a real n8n 2.41.1 (https on localhost, our package installed as a community
 * package) against the sandbox, driven only from outside (n8n's REST and public API): published, it subscribes,
 * runs once per event (also with duplicate delivery) and unsubscribes; "Listen for test event" subscribes n8n's
 * test URL beside production and ends with the first event or the stop button.
 */
import { nodeOutput } from '../../scripts/n8nCli';
import { startE2EStack } from '../helpers/e2e';
import {
	createAppointment,
	emptyMailbox,
	executions,
	listAppointments,
	mailsMatching,
	ours,
	SENDER,
	FRONT_DESK,
	fmt,
	subscriptions,
	webhookIdOf,
} from '../helpers/e2eRuns';
import { pollUntil, stopAll } from '../../scripts/proc';
import { activate, deactivate, type Stack } from '../../scripts/stack';

let stack: Stack;

beforeAll(async () => {
	stack = await startE2EStack('e2e-trigger', {
		email: 'e2e@example.com',
		password: 'E2e-Passw0rd',
		firstName: 'E2E',
		lastName: 'Owner',
	});
}, 20 * 60_000);

afterAll(async () => {
	await stack?.stop();
	await stopAll();
});

describe('trigger in a real n8n', () => {
	/**
	 * Runs `act`, waits until the sandbox delivered the event to the workflow's subscription (`copies` times: 2 with
	 * duplicateDelivery) and nothing is pending, then expects exactly one new execution of the workflow.
	 */
	async function expectOneExecution(
		workflowId: string,
		nodeName: string,
		event: string,
		act: () => Promise<string>,
		copies = 1,
	) {
		const seen = new Set((await executions(stack, workflowId)).map((e) => e.id));
		const key = await act();
		await pollUntil(
			`${copies} delivered cop${copies === 1 ? 'y' : 'ies'} of ${event} for ${key}`,
			async () => {
				const d: any = await stack.admin.ok('GET', '/__sandbox/deliveries/');
				const mine = d.deliveries.filter(
					(x: any) => x.event === event && x.appointment_key === key,
				);
				if (d.pending === 0 && mine.filter((x: any) => x.ok).length >= copies) return mine;
				throw new Error(`pending ${d.pending}, deliveries so far: ${JSON.stringify(mine)}`); // shown on time-out
			},
			{ timeoutMs: 30000 },
		);
		const fresh = await pollUntil(
			`the execution for ${event}`,
			async () => {
				const l = (await executions(stack, workflowId)).filter((e) => !seen.has(e.id));
				return l.length > 0 &&
					l.every((e) => e.finished || e.status === 'success' || e.status === 'error')
					? l
					: undefined;
			},
			{ timeoutMs: 60000 },
		);
		expect(fresh).toHaveLength(1);
		expect(fresh[0].status).toBe('success');
		const ex: any = await stack.api.ok('GET', `/api/v1/executions/${fresh[0].id}?includeData=true`);
		const items = nodeOutput(ex, nodeName);
		expect(items).toHaveLength(1);
		expect(items[0].event).toBe(event);
		expect(items[0].data.appointment_key).toBe(key);
		return { item: items[0], execution: ex };
	}

	/** The trigger's output of every execution of the workflow, oldest first: [event, appointment_key]. */
	async function triggeredEvents(workflowId: string, nodeName: string): Promise<string[][]> {
		const list = (await executions(stack, workflowId)).sort((a, b) => Number(a.id) - Number(b.id));
		const out: string[][] = [];
		for (const e of list) {
			const ex: any = await stack.api.ok('GET', `/api/v1/executions/${e.id}?includeData=true`);
			for (const i of nodeOutput(ex, nodeName)) out.push([i.event, i.data?.appointment_key]);
		}
		return out;
	}

	test('4 email on new and canceled: activation registers one https subscription; each event emails the front desk; deactivation removes it', async () => {
		const wf = 'apptReactToEvents';
		const node = 'On Created or Canceled';
		const before = (await subscriptions(stack)).length; // 0 unless example 5 failed to clean up after itself
		await activate(stack.api, wf);
		try {
			const subs = await pollUntil('one new subscription', async () => {
				const s = ours(stack, await subscriptions(stack), wf);
				return s.length > 0 ? s : undefined;
			});
			expect(subs).toHaveLength(1);
			expect(await subscriptions(stack)).toHaveLength(before + 1);
			expect(subs[0].url).toMatch(new RegExp(`^https://localhost:${stack.n8n.port}/webhook/`));
			expect([...subs[0].events].sort()).toEqual(['appointment.canceled', 'appointment.created']);

			let created: any;
			await emptyMailbox(stack);
			const c = await expectOneExecution(wf, node, 'appointment.created', async () => {
				created = await createAppointment(stack, { status: 'CONFIRMED' });
				return created.appointment_key;
			});
			expect(nodeOutput(c.execution, 'Which Event?', 0)).toHaveLength(1);
			expect(nodeOutput(c.execution, 'Which Event?', 1)).toHaveLength(0);
			const when = fmt(c.item.data.start_date, 'ccc d LLL, HH:mm');
			const [hello] = await mailsMatching(
				stack,
				1,
				(m) => m.text.includes(created.search_code),
				'the new-appointment email',
			);
			expect(hello).toMatchObject({
				to: [FRONT_DESK],
				subject: `[Example 4] New appointment: ${created.person.full_name}, ${when}`,
			});
			expect(hello.from).toContain(SENDER);

			const x = await expectOneExecution(wf, node, 'appointment.canceled', async () => {
				await stack.sandboxApi.ok(
					'DELETE',
					`/api/v3/appointments/${created.appointment_key}/?send_email=false`,
				);
				return created.appointment_key;
			});
			expect(nodeOutput(x.execution, 'Which Event?', 0)).toHaveLength(0);
			const mails = await mailsMatching(
				stack,
				2,
				(m) => m.text.includes(created.search_code),
				'the canceled-appointment email',
			);
			expect(mails).toHaveLength(2);
			expect(mails[1]).toMatchObject({
				to: [FRONT_DESK],
				subject: `[Example 4] Canceled: ${created.person.full_name}, ${when}`,
			});
			// send_email=false: the service sent no cancellation email to the client.
			const { emails } = await stack.admin.ok('GET', '/__sandbox/emails/');
			expect(emails.filter((e: any) => e.appointment_key === created.appointment_key)).toHaveLength(
				0,
			);
		} finally {
			await deactivate(stack.api, wf);
		}
		await pollUntil('its subscription removed', async () =>
			ours(stack, await subscriptions(stack), wf).length === 0 ? true : undefined,
		);
		expect(await subscriptions(stack)).toHaveLength(before);
	});

	test('6 created, canceled and updated each give exactly one execution and one email, with duplicate delivery on', async () => {
		const wf = 'apptTriggerDedupe';
		const node = 'On Any Appointment Event';
		await emptyMailbox(stack);
		await stack.admin.ok('POST', '/__sandbox/config/', { body: { duplicateDelivery: true } });
		try {
			await activate(stack.api, wf);
			const subs = await pollUntil('its subscription', async () => {
				const s = ours(stack, await subscriptions(stack), wf);
				return s.length > 0 ? s : undefined;
			});
			expect(subs).toHaveLength(1);
			expect(subs[0].url).toMatch(new RegExp(`^https://localhost:${stack.n8n.port}/webhook/`));
			expect([...subs[0].events].sort()).toEqual([
				'appointment.canceled',
				'appointment.created',
				'appointment.updated',
			]);

			let created: any;
			const c = await expectOneExecution(
				wf,
				node,
				'appointment.created',
				async () => {
					created = await createAppointment(stack, { status: 'CONFIRMED' });
					return created.appointment_key;
				},
				2,
			);
			expect(c.item.data.status).toBe('CONFIRMED');
			// Remove Duplicates lets a first delivery through.
			expect(nodeOutput(c.execution, 'Email the Event')).toHaveLength(1);

			await expectOneExecution(
				wf,
				node,
				'appointment.canceled',
				async () => {
					await stack.sandboxApi.ok(
						'DELETE',
						`/api/v3/appointments/${created.appointment_key}/?send_email=false`,
					);
					return created.appointment_key;
				},
				2,
			);

			const [victim] = await listAppointments(stack, { status: 'CONFIRMED' });
			const u = await expectOneExecution(
				wf,
				node,
				'appointment.updated',
				async () => {
					await stack.sandboxApi.ok('PATCH', `/api/v3/appointments/${victim.appointment_key}/`, {
						body: { status: 'ATTENDED' },
					});
					return victim.appointment_key;
				},
				2,
			);
			expect(u.item.data.status).toBe('ATTENDED');

			// Six deliveries (every event twice), three executions in all: no late duplicate ran afterwards.
			const d: any = await stack.admin.ok('GET', '/__sandbox/deliveries/');
			const keysOf = [created.appointment_key, victim.appointment_key];
			expect(
				d.deliveries.filter(
					(x: any) => x.ok && keysOf.includes(x.appointment_key) && x.url === subs[0].url,
				),
			).toHaveLength(6);
			expect(await triggeredEvents(wf, node)).toEqual([
				['appointment.created', created.appointment_key],
				['appointment.canceled', created.appointment_key],
				['appointment.updated', victim.appointment_key],
			]);
			// One email per event, not per delivery.
			const emailed = await mailsMatching(
				stack,
				3,
				(m) => m.subject.startsWith('[Example 6] Appointment '),
				'one email per event',
			);
			expect(
				emailed.map((m) => [
					m.subject.split(':')[0],
					m.text.includes(created.search_code) ? 'created' : 'victim',
				]),
			).toEqual([
				['[Example 6] Appointment created', 'created'],
				['[Example 6] Appointment canceled', 'created'],
				['[Example 6] Appointment updated', 'victim'],
			]);
		} finally {
			await deactivate(stack.api, wf).catch(() => undefined);
			await stack.admin.ok('POST', '/__sandbox/config/', { body: { duplicateDelivery: false } });
		}
		await pollUntil('its subscription removed', async () =>
			ours(stack, await subscriptions(stack), wf).length === 0 ? true : undefined,
		);
	});
});

describe('trigger test mode in a real n8n', () => {
	const wf = 'apptReactToEvents';
	const node = 'On Created or Canceled';

	/** Subscriptions for n8n's TEST webhook URL of the workflow's trigger (…/webhook-test/<webhookId>/…). */
	async function testSubscriptions(workflowId: string): Promise<any[]> {
		const prefix = `${stack.n8n.url}/webhook-test/${webhookIdOf(stack, workflowId)}/`;
		return (await subscriptions(stack)).filter((s) => String(s.url).startsWith(prefix));
	}

	/** What the editor's "Listen for test event" button does: a manual run from the trigger, which waits for its webhook. */
	async function listen(workflowId: string, triggerName: string): Promise<any> {
		const r: any = await stack.rest.ok('POST', `/rest/workflows/${workflowId}/run`, {
			body: { triggerToStartFrom: { name: triggerName } },
		});
		expect(r.data).toEqual({ waitingForWebhook: true });
		const subs = await pollUntil('the test subscription', async () => {
			const s = await testSubscriptions(workflowId);
			return s.length > 0 ? s : undefined;
		});
		expect(subs).toHaveLength(1);
		expect([...subs[0].events].sort()).toEqual(['appointment.canceled', 'appointment.created']);
		return subs[0];
	}

	async function testSubscriptionRemoved(workflowId: string, what: string) {
		await pollUntil(
			what,
			async () => {
				const s = await testSubscriptions(workflowId);
				if (s.length === 0) return true;
				throw new Error(`still there: ${JSON.stringify(s)}`);
			},
			{ timeoutMs: 30000 },
		);
	}

	test('"Listen for test event" subscribes the test URL, the first event completes the run, listening ends without it; production untouched', async () => {
		await activate(stack.api, wf);
		try {
			const [prod] = await pollUntil('the production subscription', async () => {
				const s = ours(stack, await subscriptions(stack), wf);
				return s.length > 0 ? s : undefined;
			});
			expect(ours(stack, await subscriptions(stack), wf)).toEqual([prod]);
			await stack.admin.ok('DELETE', '/__sandbox/requests/');
			const prodUntouched = async () => {
				expect(ours(stack, await subscriptions(stack), wf)).toEqual([prod]);
				const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
				const onProd = requests.filter((q: any) => String(q.path).includes(prod.webhook_key));
				expect(onProd).toEqual([]);
			};

			// (a) Listening ends with the first event.
			const seen = new Set((await executions(stack, wf)).map((e) => e.id));
			const sub = await listen(wf, node);
			expect(sub.url).toBe(`${stack.n8n.url}/webhook-test/${webhookIdOf(stack, wf)}/webhook`);
			expect(sub.webhook_key).not.toBe(prod.webhook_key);
			await prodUntouched();

			const created = await createAppointment(stack, { status: 'CONFIRMED' });
			const key = created.appointment_key;
			// The sandbox delivers the event to both URLs: one manual (test) run and one production run.
			const fresh = await pollUntil(
				'a manual and a production execution for the event',
				async () => {
					const l = (await executions(stack, wf)).filter((e) => !seen.has(e.id));
					const done = l.every((e) => e.finished || e.status === 'success' || e.status === 'error');
					if (done && l.some((e) => e.mode === 'manual') && l.some((e) => e.mode === 'webhook'))
						return l;
					throw new Error(`new executions so far: ${JSON.stringify(l)}`);
				},
				{ timeoutMs: 60000 },
			);
			expect(fresh.map((e) => e.mode).sort()).toEqual(['manual', 'webhook']);
			// One email from each run.
			expect(
				await mailsMatching(
					stack,
					2,
					(m) => m.text.includes(created.search_code),
					'an email from each run',
				),
			).toHaveLength(2);
			for (const e of fresh) {
				expect(e.status).toBe('success');
				const ex: any = await stack.api.ok('GET', `/api/v1/executions/${e.id}?includeData=true`);
				const items = nodeOutput(ex, node);
				expect(items).toHaveLength(1);
				expect(items[0].event).toBe('appointment.created');
				expect(items[0].data.appointment_key).toBe(key);
				expect(nodeOutput(ex, 'Email New Appointment')).toHaveLength(1);
			}
			const d: any = await stack.admin.ok('GET', `/__sandbox/deliveries/?appointment_key=${key}`);
			const okTo = (url: string) =>
				d.deliveries.filter((x: any) => x.ok && x.url === url && x.event === 'appointment.created');
			expect(okTo(sub.url)).toHaveLength(1);
			expect(okTo(prod.url)).toHaveLength(1);
			await testSubscriptionRemoved(wf, 'the test subscription removed after the first event');
			const { requests } = await stack.admin.ok('GET', '/__sandbox/requests/');
			expect(
				requests.filter(
					(q: any) => q.method === 'DELETE' && String(q.path).includes(sub.webhook_key),
				),
			).toHaveLength(1);
			await prodUntouched();

			// (b) Listening stopped without an event (the editor's stop button: DELETE /rest/test-webhook/:workflowId).
			const seen2 = new Set((await executions(stack, wf)).map((e) => e.id));
			const sub2 = await listen(wf, node);
			expect(sub2.webhook_key).not.toBe(sub.webhook_key);
			await stack.rest.ok('DELETE', `/rest/test-webhook/${wf}`);
			await testSubscriptionRemoved(wf, 'the test subscription removed after stopping');
			// n8n no longer listens on the test URL.
			const probe = await stack.n8n.http.call('POST', new URL(sub2.url).pathname, { body: {} });
			expect(probe.status).toBe(404);
			expect((await executions(stack, wf)).filter((e) => !seen2.has(e.id))).toEqual([]);
			await prodUntouched();
		} finally {
			await deactivate(stack.api, wf);
		}
		await pollUntil('the production subscription removed', async () =>
			ours(stack, await subscriptions(stack), wf).length === 0 ? true : undefined,
		);
		expect(await testSubscriptions(wf)).toEqual([]);
	});
});
