/**
 * The trigger's subscription lifecycle against the sandbox over real HTTP, through n8n-core's HookContext as
 * n8n's ActiveWorkflowManager and TestWebhooks call it (test/helpers/trigger.ts): exactly one subscription per
 * URL whatever happened before, https refused before any request, test mode apart from production.
 */
import {
	ALL_EVENTS,
	LIMITED,
	admin,
	api,
	apiRequests,
	harness,
	post,
	reset,
	sorted,
	subscriptions,
	useSandbox,
} from './common';
import { pollUntil } from '../helpers/trigger';
import { AppointmentsTrigger } from '../../nodes/Appointments/AppointmentsTrigger.node';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- n8n's own parameter check, as the editor runs it
const { NodeHelpers } = require('n8n-workflow') as typeof import('n8n-workflow');

const ctx = useSandbox();

beforeEach(async () => {
	await reset(ctx);
});

const ours = async (url: string) => (await subscriptions(ctx)).filter((s) => s.url === url);
const stored = (h: { staticData(): Record<string, unknown> }, name = 'Appointments Trigger') =>
	(h.staticData()[`node:${name}`] ?? {}) as { webhookKey?: string; webhookUrl?: string };

describe('activation', () => {
	it('registers exactly one https subscription with the chosen events and remembers its key', async () => {
		const h = await harness(ctx, {
			parameters: {
				events: ['appointment.created', 'appointment.canceled'],
				otherEvents: 'appointment.updated',
				options: {},
			},
		});
		await h.activate();
		const subs = await subscriptions(ctx);
		expect(subs).toHaveLength(1);
		expect(subs[0].url).toBe(h.productionUrl);
		expect(subs[0].url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/webhook\/[0-9a-f-]{36}\/webhook$/);
		expect(sorted(subs[0].events)).toEqual([
			'appointment.canceled',
			'appointment.created',
			'appointment.updated',
		]);
		expect(stored(h)).toEqual({ webhookKey: subs[0].webhook_key, webhookUrl: h.productionUrl });
		expect((await apiRequests(ctx)).filter((r) => r.method === 'POST')).toHaveLength(1);
	});

	it('re-activation (n8n restart, re-publish) finds the stored subscription and adds no second', async () => {
		const h = await harness(ctx);
		await h.activate();
		const [first] = await subscriptions(ctx);
		await admin(ctx, 'DELETE', '/__sandbox/requests/');
		await h.activate('init');
		await h.activate('update');
		expect(await subscriptions(ctx)).toEqual([first]);
		expect((await apiRequests(ctx)).map((r) => r.method)).toEqual(['GET', 'GET']);
	});

	it('a renamed node (its static data is keyed by the old name) adopts its subscription by URL', async () => {
		const h = await harness(ctx);
		await h.activate();
		const [first] = await subscriptions(ctx);
		h.renameNode('On Appointment Events');
		await admin(ctx, 'DELETE', '/__sandbox/requests/');
		await h.activate('update');
		// The URL holds the node's webhookId, which a rename keeps.
		expect(await subscriptions(ctx)).toEqual([first]);
		expect((await apiRequests(ctx)).some((r) => r.method === 'POST')).toBe(false);
		expect(stored(h, 'On Appointment Events')).toEqual({
			webhookKey: first.webhook_key,
			webhookUrl: h.productionUrl,
		});
	});

	it('changed events are fixed on the same subscription with PUT', async () => {
		const h = await harness(ctx, { parameters: { events: ['appointment.created'], options: {} } });
		await h.activate();
		const [before] = await subscriptions(ctx);
		h.setParameters({ events: ['appointment.created', 'appointment.updated'], options: {} });
		await admin(ctx, 'DELETE', '/__sandbox/requests/');
		await h.activate('update');
		const subs = await subscriptions(ctx);
		expect(subs).toHaveLength(1);
		expect(subs[0].webhook_key).toBe(before.webhook_key);
		expect(sorted(subs[0].events)).toEqual(['appointment.created', 'appointment.updated']);
		expect((await apiRequests(ctx)).map((r) => r.method)).toEqual(['GET', 'PUT']);
	});

	it('removes extra copies for our URL and never touches a subscription with another URL', async () => {
		const h = await harness(ctx);
		const foreign = (
			await api(ctx, 'POST', 'webhooks/', {
				url: 'https://example.com/hooks/other',
				events: ['appointment.created'],
			})
		).body;
		const a = (
			await api(ctx, 'POST', 'webhooks/', { url: h.productionUrl, events: ['appointment.created'] })
		).body;
		const b = (await api(ctx, 'POST', 'webhooks/', { url: h.productionUrl, events: ALL_EVENTS }))
			.body;
		await h.activate();
		const subs = await subscriptions(ctx);
		expect(subs).toHaveLength(2);
		expect(subs.find((s) => s.webhook_key === foreign.webhook_key)).toMatchObject({
			url: 'https://example.com/hooks/other',
			events: ['appointment.created'],
		});
		const mine = subs.filter((s) => s.url === h.productionUrl);
		expect(mine).toHaveLength(1);
		// The copy that already had the right events is kept: no PUT needed.
		expect(mine[0].webhook_key).toBe(b.webhook_key);
		expect(mine[0].webhook_key).not.toBe(a.webhook_key);
		expect(
			(await apiRequests(ctx)).some(
				(r) =>
					r.method === 'PUT' || (r.method === 'DELETE' && r.path.includes(foreign.webhook_key)),
			),
		).toBe(false);
		await h.deactivate();
		expect((await subscriptions(ctx)).map((s) => s.webhook_key)).toEqual([foreign.webhook_key]);
	});

	it('refuses a non-https webhook URL before sending any request, and says how to fix it', async () => {
		const h = await harness(ctx, { webhookBaseUrl: 'http://127.0.0.1:5678' });
		expect(h.productionUrl).toMatch(/^http:\/\//);
		const error = await h.activate().then(
			() => undefined,
			(e: Error) => e,
		);
		expect(error?.message).toMatch(/accepts only HTTPS callback URLs/);
		expect(error?.message).toContain(h.productionUrl);
		expect(error?.message).toMatch(/WEBHOOK_URL/);
		expect(error?.message).toMatch(/reverse proxy|tunnel/);
		await expect(h.startTest()).rejects.toThrow(/HTTPS/);
		expect(await apiRequests(ctx)).toEqual([]);
		expect(await subscriptions(ctx)).toEqual([]);
	});

	it('without any event, activation fails naming the field, and nothing is subscribed', async () => {
		const h = await harness(ctx, { parameters: { events: [], otherEvents: ' ', options: {} } });
		await expect(h.activate()).rejects.toThrow(/"Events" must be at least one event/);
		// Only the list read by n8n's clean-up after a failed activation (delete looks for our URL).
		expect((await apiRequests(ctx)).map((r) => r.method)).toEqual(['GET']);
		expect(await subscriptions(ctx)).toEqual([]);
	});

	it.each([
		['Events', { events: '={{ ["appointment created"] }}' }],
		['Filters › Statuses', { filters: { statuses: '={{ ["CONFIRMD"] }}' } }],
		['Options › Dedupe Key', { options: { dedupeKey: 'bogus' } }],
		['Options › Dedupe Window', { options: { dedupeWindow: '={{ -1 }}' } }],
		['Filters', { filters: { statuses: '={{ $("No Such Node").item.json.status }}' } }],
	])(
		'"%s" that cannot be read: publishing is refused naming the field, before any request, and so is the restart',
		async (label, change) => {
			const base = { events: ALL_EVENTS, otherEvents: '', options: {} };
			const h = await harness(ctx, { parameters: { ...base, ...change } });
			const error = await h.activate().then(
				() => undefined,
				(e: Error) => e,
			);
			expect(error?.message).toMatch(
				new RegExp(`^The field "${label}" (must be|could not be read: )`),
			);
			// Only the list read by n8n's clean-up after a failed activation (delete looks for our URL).
			expect((await apiRequests(ctx)).map((r) => r.method)).toEqual(['GET']);
			expect(await subscriptions(ctx)).toEqual([]);
			// Published while it could be read; on n8n's restart (checkExists) it is reported, not served.
			h.setParameters(base);
			await h.activate();
			h.setParameters({ ...base, ...change });
			await expect(h.activate('init')).rejects.toThrow(
				new RegExp(`^The field "${label}" (must be|could not be read: )`),
			);
		},
	);

	it('Events may be empty when Other Events names one: n8n sees no parameter issue and activation subscribes it', async () => {
		const parameters = { events: [], otherEvents: 'appointment.updated', options: {} };
		const description = new AppointmentsTrigger().description;
		const node = {
			id: 'n1',
			name: 'Appointments Trigger',
			type: 'appointmentsTrigger',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters,
		};
		// What the editor shows as "Parameter "Events" is required" on the canvas and in the panel.
		expect(
			NodeHelpers.getNodeParametersIssues(description.properties, node, description),
		).toBeNull();
		const h = await harness(ctx, { parameters });
		await h.activate();
		const subs = await subscriptions(ctx);
		expect(subs.map((s) => s.events)).toEqual([['appointment.updated']]);
	});

	it('a token without webhook permission fails activation with a readable error', async () => {
		const h = await harness(ctx, { credentials: { baseUrl: ctx.sb.url, accessToken: LIMITED } });
		await expect(h.activate()).rejects.toThrow(/permission/i);
		expect(await subscriptions(ctx)).toEqual([]);
	});
});

describe('deactivation', () => {
	it('removes the subscription and clears the stored key', async () => {
		const h = await harness(ctx);
		await h.activate();
		expect(await subscriptions(ctx)).toHaveLength(1);
		await h.deactivate();
		expect(await subscriptions(ctx)).toEqual([]);
		expect(stored(h)).toEqual({});
	});

	it('succeeds when the subscription was deleted behind our back (404 counts as done)', async () => {
		const h = await harness(ctx);
		await h.activate();
		const [sub] = await subscriptions(ctx);
		expect((await api(ctx, 'DELETE', `webhooks/${sub.webhook_key}/`)).status).toBe(204);
		await admin(ctx, 'DELETE', '/__sandbox/requests/');
		await h.deactivate();
		expect((await apiRequests(ctx)).map((r) => `${r.method} ${r.status}`)).toEqual(['DELETE 404']);
		expect(stored(h)).toEqual({});
		// And the next activation starts clean: one new subscription.
		await h.activate();
		expect(await subscriptions(ctx)).toHaveLength(1);
	});

	it('raises other errors instead of swallowing them (the subscription is still there)', async () => {
		const h = await harness(ctx);
		await h.activate();
		await admin(ctx, 'POST', '/__sandbox/faults/', {
			count: 1,
			status: 403,
			match: { method: 'DELETE' },
		});
		await expect(h.deactivate()).rejects.toThrow(/permission/i);
		expect(await subscriptions(ctx)).toHaveLength(1);
		expect(stored(h).webhookKey).toBeDefined(); // n8n saves no static data after a failed removal
		await h.deactivate();
		expect(await subscriptions(ctx)).toEqual([]);
	});

	it('without a stored key, finds its subscription by URL', async () => {
		const h = await harness(ctx);
		const other = (
			await api(ctx, 'POST', 'webhooks/', {
				url: 'https://example.com/elsewhere',
				events: ALL_EVENTS,
			})
		).body;
		await h.activate();
		h.clearStaticData();
		await h.deactivate();
		expect((await subscriptions(ctx)).map((s) => s.webhook_key)).toEqual([other.webhook_key]);
	});
});

describe('test mode ("Listen for test event")', () => {
	it('subscribes the test URL apart from production and removes only that one', async () => {
		const h = await harness(ctx);
		await h.activate();
		const [production] = await subscriptions(ctx);
		await h.startTest();
		const both = await subscriptions(ctx);
		expect(both).toHaveLength(2);
		const test = both.find((s) => s.url === h.testUrl)!;
		expect(test.url).toMatch(/\/webhook-test\//);
		expect(both.find((s) => s.url === h.productionUrl)).toEqual(production);
		// Listening again while the test subscription exists does not add a third.
		await h.startTest();
		expect(await subscriptions(ctx)).toHaveLength(2);
		await h.stopTest();
		expect(await subscriptions(ctx)).toEqual([production]);
		// Production still knows its own key (test mode never saved static data).
		expect(stored(h).webhookKey).toBe(production.webhook_key);
		await h.deactivate();
		expect(await subscriptions(ctx)).toEqual([]);
	});

	it('a test event starts one test execution, then the test subscription is removed as n8n does', async () => {
		const h = await harness(ctx, { parameters: { events: ['appointment.created'], options: {} } });
		await h.startTest();
		const created = await admin(ctx, 'POST', '/__sandbox/appointments/', { status: 'CONFIRMED' });
		await pollUntil('the test execution', () => h.starts.length === 1);
		await h.idle();
		expect(h.starts[0].mode).toBe('test');
		expect(h.starts[0].items[0].json).toMatchObject({
			event: 'appointment.created',
			data: { appointment_key: created.appointment_key },
		});
		expect(await ours(h.testUrl)).toEqual([]);
		expect(h.testListening).toBe(false);
		// The test URL is gone: a late POST gets n8n's 404.
		expect((await post(h.testUrl, JSON.stringify({}))).status).toBe(404);
	});
});
