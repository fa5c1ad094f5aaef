/**
 * Version 2 of the Appointments node as the editor shows it: the list searches behind its resource locators
 * (appointments and webhooks, against the sandbox) and its hints.
 */
import { DateTime, Settings } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { listSearch } from '../helpers/n8n';
import { apiRequests, runOk, TOKEN, ZONE, type Admin, type Sandbox } from './helpers';
import { rl, useVersion2Sandbox } from './version2Sandbox';

let sb: Sandbox;
let admin: Admin;
let all: IDataObject[];

useVersion2Sandbox((started) => ({ sb, admin, all } = started));

const search = async (
	method: string,
	filter?: string,
	paginationToken?: string,
	zones = { timezone: ZONE, account: undefined as string | undefined },
) =>
	await listSearch({
		method,
		filter,
		paginationToken,
		credentials: {
			baseUrl: sb.url,
			accessToken: TOKEN,
			...(zones.account === undefined ? {} : { accountTimeZone: zones.account }),
		},
		timezone: zones.timezone,
	});

describe('list search: appointments', () => {
	const label =
		/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2}( \d{4})? \d{2}:\d{2} · .+ · [A-Z0-9]+ · .+ · [A-Z_]+$/;
	const startMs = (a: IDataObject) => DateTime.fromISO(String(a.start_date)).toMillis();
	/** What the list should show for these appointments: from today 00:00 on, earliest first, then the earlier ones. */
	const upcomingFirst = (list: IDataObject[], zone = ZONE) => {
		const today = DateTime.now().setZone(zone).startOf('day').toMillis();
		const byStart = [...list].sort(
			(a, b) =>
				startMs(a) - startMs(b) ||
				String(a.appointment_key).localeCompare(String(b.appointment_key)),
		);
		return [
			...byStart.filter((a) => startMs(a) >= today),
			...byStart.filter((a) => startMs(a) < today),
		];
	};
	/** Scrolls the list to its end, as the editor does, and returns every entry and the number of calls. */
	const scrollAll = async (
		filter?: string,
		zones?: { timezone: string; account: string | undefined },
	) => {
		const shown: Array<{ name: string; value: string }> = [];
		let token: string | undefined;
		let calls = 0;
		do {
			const page = await search('searchAppointments', filter, token, zones);
			shown.push(...page.results.map((r) => ({ name: r.name, value: String(r.value) })));
			token = page.paginationToken;
			calls++;
		} while (token);
		return { shown, calls };
	};

	test('without search text: upcoming first (from today 00:00), then the earlier ones, each once, as a person recognises them', async () => {
		const first = await search('searchAppointments');
		expect(first.results).toHaveLength(20);
		const { shown, calls } = await scrollAll();
		expect(calls).toBeGreaterThan(2); // paged over the service's next links
		expect(shown.map((r) => r.value)).toEqual(upcomingFirst(all).map((a) => a.appointment_key));
		const a = upcomingFirst(all)[0];
		const start = DateTime.fromISO(String(a.start_date), { zone: ZONE, locale: 'en' });
		// When, who, then the code that tells two alike apart, before the long calendar name the editor cuts off.
		expect(shown[0].name).toBe(
			`${start.toFormat('ccc d LLL HH:mm')} · ${(a.person as IDataObject).full_name} · ${a.search_code} · ${(a.calendar as IDataObject).name} · ${a.status}`,
		);
		for (const r of shown) expect(r.name).toMatch(label);
		const beforeCalendar = shown.map((r) => r.name.split(' · ').slice(0, 3).join(' · '));
		expect(new Set(beforeCalendar).size).toBe(shown.length);
	});

	test("a workflow in Europe/Berlin, an account in America/Santiago (Account Time Zone): upcoming from Berlin's today 00:00, each once", async () => {
		const midnight = DateTime.now().setZone('Europe/Berlin').startOf('day');
		// Between Berlin's and Santiago's midnight: upcoming for a Berlin workflow, whatever the account's clock says.
		for (const hours of [-1, 0, 1, 3])
			await admin.create({ start_date: midnight.plus({ hours }).toISO(), status: 'CONFIRMED' });
		const list = await admin.appointments();
		const { shown } = await scrollAll(undefined, { timezone: 'Europe/Berlin', account: ZONE });
		expect(shown.map((r) => r.value)).toEqual(
			upcomingFirst(list, 'Europe/Berlin').map((a) => a.appointment_key),
		);
	});

	test.each(['zoneinfo', 'later', 'refuse'])(
		"today 00:00 in the account's repeated hour, read as %s: each appointment once, on its side of it",
		async (dstWallClock) => {
			// America/Noronha is -02:00: its 5 April 2026 starts at 02:00Z, 23:00 of Santiago's first pass of that hour.
			Settings.now = () => Date.parse('2026-04-05T03:30:00Z');
			try {
				await admin.config({ dstWallClock });
				for (const start of ['01:30', '02:00', '02:30', '03:30'])
					await admin.create({ start_date: `2026-04-05T${start}:00Z`, status: 'CONFIRMED' });
				const list = await admin.appointments();
				const { shown } = await scrollAll(undefined, {
					timezone: 'America/Noronha',
					account: ZONE,
				});
				expect(shown.map((r) => r.value)).toEqual(
					upcomingFirst(list, 'America/Noronha').map((a) => a.appointment_key),
				);
			} finally {
				Settings.now = () => Date.now();
				await admin.config({ dstWallClock: 'zoneinfo' });
			}
		},
	);

	test('a name narrows the list (case-insensitive part of the name), still upcoming first', async () => {
		const name = String((all[0].person as IDataObject).full_name).split(' ')[0];
		const typed = name.toLowerCase().slice(0, 4);
		const matching = all.filter((a) =>
			String((a.person as IDataObject).full_name)
				.toLowerCase()
				.includes(typed),
		);
		const { shown } = await scrollAll(typed);
		expect(shown.length).toBeGreaterThan(0);
		expect(shown.length).toBeLessThan(all.length);
		expect(shown.map((r) => r.value)).toEqual(
			upcomingFirst(matching).map((a) => a.appointment_key),
		);
		const sent = (await apiRequests(admin)).map((r) => r.query);
		expect(sent).toContainEqual(expect.objectContaining({ name: typed }));
	});

	test('an e-mail, a code or a key finds that appointment', async () => {
		const a = all[5];
		const email = String((a.person as IDataObject).email);
		const byEmail = await scrollAll(email);
		expect(byEmail.shown.map((r) => r.value)).toEqual(
			upcomingFirst(all.filter((x) => (x.person as IDataObject).email === email)).map(
				(x) => x.appointment_key,
			),
		);
		expect((await scrollAll(String(a.search_code))).shown.map((r) => r.value)).toEqual([
			a.appointment_key,
		]);
		expect(
			(await search('searchAppointments', String(a.appointment_key))).results.map((r) => r.value),
		).toEqual([a.appointment_key]);
		expect(
			(await search('searchAppointments', '00000000-0000-4000-8000-000000000000')).results,
		).toEqual([]);
	});

	test('a pagination token for another origin is refused without a request', async () => {
		await expect(
			search(
				'searchAppointments',
				undefined,
				'upcoming https://evil.example/api/v3/appointments/?page=2',
			),
		).rejects.toThrow(/only the credential's origin/);
		expect(await apiRequests(admin)).toEqual([]);
	});
});

describe('list search: webhooks', () => {
	test('subscriptions shown as URL and events, narrowed by the search text', async () => {
		for (const [path, events] of [
			['a', ['appointment.created']],
			['b', ['appointment.canceled', 'appointment.updated']],
		] as const) {
			await runOk(sb, {
				resource: 'webhook',
				operation: 'create',
				url: `https://example.com/hooks/${path}`,
				events: [...events],
			});
		}
		const hooks = await admin.webhooks();
		const { results } = await search('searchWebhooks');
		expect(results.map((r) => r.name).sort()).toEqual([
			'https://example.com/hooks/a · appointment.created',
			'https://example.com/hooks/b · appointment.canceled, appointment.updated',
		]);
		expect(results.map((r) => r.value).sort()).toEqual(hooks.map((h) => h.webhook_key).sort());
		const narrowed = await search('searchWebhooks', 'CANCELED');
		expect(narrowed.results.map((r) => r.name)).toEqual([
			'https://example.com/hooks/b · appointment.canceled, appointment.updated',
		]);
		for (const hook of hooks) {
			await runOk(sb, {
				resource: 'webhook',
				operation: 'delete',
				webhookKey: rl(String(hook.webhook_key)),
			});
		}
	});
});

describe('hints', () => {
	// n8n's editor shows a hint when its displayCondition, an expression over the node's parameters, is true.
	const shown = (parameters: IDataObject): string[] => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { Workflow, NodeHelpers } = require('n8n-workflow') as typeof import('n8n-workflow');
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { Appointments } = require('../../nodes/Appointments/Appointments.node');
		const nodeType = NodeHelpers.getVersionedNodeType(new Appointments(), 2);
		const node = {
			id: 'n',
			name: 'Node',
			type: 'test.appointments',
			typeVersion: 2,
			position: [0, 0] as [number, number],
			parameters: parameters as never,
		};
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: false,
			nodeTypes: {
				getByName: () => nodeType,
				getByNameAndVersion: () => nodeType,
				getKnownTypes: () => ({}),
			} as never,
		});
		return (nodeType.description.hints ?? [])
			.filter(
				(hint) =>
					workflow.expression.getSimpleParameterValue(
						workflow.getNode('Node')!,
						hint.displayCondition!,
						'internal',
						{},
					) === true,
			)
			.map((hint) => hint.message);
	};

	test('Get Many with Return All and no date range warns about large accounts; a Date Range names its time zone', () => {
		const getMany = { resource: 'appointment', operation: 'getAll' };
		expect(shown({ ...getMany, returnAll: true, dateRange: 'all' })).toEqual([
			expect.stringMatching(/^Return All reads every page/),
		]);
		expect(shown({ ...getMany, returnAll: false, dateRange: 'today' })).toEqual([
			expect.stringMatching(/time zone/),
		]);
		expect(shown({ ...getMany, returnAll: false, dateRange: 'all' })).toEqual([]);
		expect(shown({ resource: 'webhook', operation: 'getAll', returnAll: true })).toEqual([]);
	});
});
