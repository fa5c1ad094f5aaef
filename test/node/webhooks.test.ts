/** Webhook operations through the node against the sandbox. */
import type { IDataObject } from 'n8n-workflow';

import {
	apiRequests,
	LIMITED,
	run,
	runFail,
	runOk,
	useSandbox,
	type Admin,
	type Sandbox,
} from './helpers';

let sb: Sandbox;
let admin: Admin;

useSandbox({ seed: 5 }, (started) => ({ sb, admin } = started));

beforeEach(async () => {
	await admin.reset();
});

const create = async (url: string, events: string[], otherEvents = '') =>
	(await runOk(sb, { resource: 'webhook', operation: 'create', url, events, otherEvents }))[0];

test('create sends url and events (picked and typed) and returns the stored subscription', async () => {
	const out = await create(
		'https://example.com/hooks/a',
		['appointment.created', 'appointment.canceled'],
		'appointment.updated, appointment.created',
	);
	expect(out).toMatchObject({
		url: 'https://example.com/hooks/a',
		events: ['appointment.created', 'appointment.canceled', 'appointment.updated'],
	});
	expect(typeof out.webhook_key).toBe('string');
	const stored = await admin.webhooks();
	expect(stored).toHaveLength(1);
	expect(stored[0]).toMatchObject({
		webhook_key: out.webhook_key,
		url: 'https://example.com/hooks/a',
	});
	// The list first: after a lost answer only a subscription that was not there before may be adopted.
	expect((await apiRequests(admin)).map((r) => `${r.method} ${r.path}`)).toEqual([
		'GET /api/v3/webhooks/',
		'POST /api/v3/webhooks/',
	]);
});

test('update replaces url and events; delete returns { deleted: true, webhook_key }', async () => {
	const created = await create('https://example.com/hooks/b', ['appointment.created']);
	const [updated] = await runOk(sb, {
		resource: 'webhook',
		operation: 'update',
		webhookKey: created.webhook_key,
		url: 'https://example.com/hooks/b2',
		events: ['appointment.updated'],
	});
	expect(updated).toMatchObject({
		webhook_key: created.webhook_key,
		url: 'https://example.com/hooks/b2',
		events: ['appointment.updated'],
	});
	expect((await admin.webhooks())[0]).toMatchObject({
		url: 'https://example.com/hooks/b2',
		events: ['appointment.updated'],
	});

	await admin.clearRequests();
	const [deleted] = await runOk(sb, {
		resource: 'webhook',
		operation: 'delete',
		webhookKey: created.webhook_key,
	});
	expect(deleted).toEqual({ deleted: true, webhook_key: created.webhook_key });
	expect(await admin.webhooks()).toHaveLength(0);
	// The list first, so the output carries the key as the service gives it.
	expect((await apiRequests(admin)).map((r) => `${r.method} ${r.path}`)).toEqual([
		'GET /api/v3/webhooks/',
		`DELETE /api/v3/webhooks/${String(created.webhook_key)}/`,
	]);
});

test('an event the service does not know: its 400 field message, in words', async () => {
	const error = await runFail(sb, {
		resource: 'webhook',
		operation: 'create',
		url: 'https://example.com/hooks/c',
		events: [],
		otherEvents: 'appointment.rescheduled',
	});
	expect(error.name).toBe('NodeApiError');
	expect(error.message).toMatch(
		/^The service rejected the request: events: .*appointment\.rescheduled/,
	);
	expect(await admin.webhooks()).toHaveLength(0);
});

test('delete of an unknown subscription is an error that names it', async () => {
	const error = await runFail(sb, {
		resource: 'webhook',
		operation: 'delete',
		webhookKey: 'no-such-hook',
	});
	expect(error.message).toBe('Webhook no-such-hook not found');
});

describe.each(['paginated', 'array'])('get many with a %s list', (webhookList) => {
	beforeEach(async () => {
		await admin.config({ webhookList });
	});

	test('one item per subscription; a limit cuts', async () => {
		for (const n of [1, 2, 3])
			await create(`https://example.com/hooks/${n}`, ['appointment.created']);
		const outAll = await runOk(sb, { resource: 'webhook', operation: 'getAll', returnAll: true });
		expect(outAll.map((w) => w.url).sort()).toEqual(
			[1, 2, 3].map((n) => `https://example.com/hooks/${n}`),
		);
		expect(await runOk(sb, { resource: 'webhook', operation: 'getAll', limit: 2 })).toHaveLength(2);
	});
});

test('a token without webhook permission: a 403 message naming what is missing', async () => {
	const result = await run(
		sb,
		{ resource: 'webhook', operation: 'getAll', returnAll: true },
		{ token: LIMITED },
	);
	expect(result.error?.message).toBe('The access token lacks permission for webhooks');
});

test.each<[string, IDataObject, RegExp]>([
	[
		'http:// URL',
		{ url: 'http://example.com/hook', events: ['appointment.created'] },
		/"URL" \(item 0\) must use https: the service only accepts HTTPS/,
	],
	[
		'no URL',
		{ url: '={{ "" }}', events: ['appointment.created'] },
		/"URL" \(item 0\) must be an absolute HTTPS address/,
	],
	[
		'no events',
		{ url: 'https://example.com/h', events: [], otherEvents: ' , ' },
		/"Events" \(item 0\) must be at least one event/,
	],
	[
		'a malformed typed event',
		{ url: 'https://example.com/h', events: [], otherEvents: 'created!' },
		/"Other Events" \(item 0\) must be event names/,
	],
])('create with %s is refused before any request', async (_name, fields, message) => {
	await admin.clearRequests();
	for (const operation of ['create', 'update']) {
		const error = await runFail(sb, {
			resource: 'webhook',
			operation,
			webhookKey: 'k1',
			...fields,
		});
		expect(error.message).toMatch(message);
	}
	expect(await apiRequests(admin)).toHaveLength(0);
});
