/**
 * Records what the package does, to compare two commits before and after a refactoring (issue 26): every node's
 * description per version, and for every operation of every version of the action node, the requests the sandbox
 * receives, the items and the error for a corpus of parameter values derived from the description itself (each
 * field and each option given a few plausible and wrong values in turn). Not part of `npm test`:
 *
 *   RECORD_OUT=/tmp/after.json npx jest --testMatch '**\/compare/behaviour.record.ts' --testTimeout 600000
 *
 * then the same on the other commit and `diff` the two files. The clock is pinned (Date only, timers run) so the
 * sandbox's seed, "Today" and created_at are the same in both runs; webhook keys (random UUIDs) are masked.
 */
import { writeFileSync } from 'node:fs';
import type {
	IDataObject,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IVersionedNodeType,
} from 'n8n-workflow';

import { adminClient, run, start, type Admin, type Sandbox } from '../node/helpers';

const NOW = Date.parse('2026-11-24T15:00:00Z');
const OUT = process.env.RECORD_OUT ?? '/tmp/behaviour.json';

type Shown = Record<string, unknown[]>;
function shown(p: INodeProperties, params: IDataObject, version: number): boolean {
	const matches = (cond: Shown) =>
		Object.entries(cond).every(([k, allowed]) => {
			const value = k === '@version' ? version : params[k];
			return allowed.some((a) => {
				if (a && typeof a === 'object' && '_cnd' in (a as object)) {
					const [[op, v]] = Object.entries((a as { _cnd: Record<string, number> })._cnd);
					const n = value as number;
					return op === 'gte'
						? n >= v
						: op === 'lte'
							? n <= v
							: op === 'gt'
								? n > v
								: op === 'lt'
									? n < v
									: n === v;
				}
				return a === value;
			});
		});
	const show = p.displayOptions?.show as Shown | undefined;
	const hide = p.displayOptions?.hide as Shown | undefined;
	if (show && !matches(show)) return false;
	if (hide && Object.entries(hide).some(([k, v]) => matches({ [k]: v }))) return false;
	return true;
}

const KEY = 'KEY';
function valuesFor(p: INodeProperties): unknown[] {
	switch (p.type) {
		case 'boolean':
			return [true, false];
		case 'number':
			return [-1, 0, 1, 2.5, 150];
		case 'options':
			return [...(p.options ?? []).map((o) => (o as { value: unknown }).value), 'bogus'];
		case 'multiOptions':
			return [
				[],
				(p.options ?? []).slice(0, 1).map((o) => (o as { value: unknown }).value),
				['bogus'],
			];
		case 'dateTime':
			return ['', '2026-11-30T10:00:00', '2026-09-06T00:30:00', 'garbage', '2026-04-04T23:30:00'];
		case 'resourceLocator':
			return [
				{ __rl: true, mode: 'id', value: KEY },
				{ __rl: true, mode: 'id', value: '' },
				{ __rl: true, mode: 'id', value: 'no such key' },
				{ __rl: true, mode: 'url', value: `http://127.0.0.1/appointments/${KEY}/` },
				{ __rl: true, mode: 'list', value: KEY },
			];
		case 'json':
			return ['{}', '{bad', '{"status":"CONFIRMED"}'];
		case 'collection':
			return (p.options as INodeProperties[]).flatMap((o) =>
				valuesFor(o).map((v) => ({ [o.name]: v })),
			);
		case 'fixedCollection':
			return [{}];
		case 'notice':
		case 'hidden':
			return [];
		default:
			return ['', 'x', KEY, '2026-11-30T10:00:00', 'https://example.com/hook', ' 7 '];
	}
}

function mask(value: unknown, key: string): unknown {
	return JSON.parse(
		JSON.stringify(value ?? null)
			.replaceAll(key, '<KEY>')
			.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
			.replace(/127\.0\.0\.1:\d+/g, '<host>'),
	);
}

function describe_(type: INodeType | IVersionedNodeType): Record<string, INodeTypeDescription> {
	if ('nodeVersions' in type)
		return Object.fromEntries(
			Object.entries(type.nodeVersions).map(([v, t]) => [v, t.description]),
		);
	return { only: type.description };
}

async function record(sb: Sandbox, admin: Admin, params: IDataObject, version: number) {
	await admin.reset();
	await admin.clearRequests();
	const [first] = await admin.appointments();
	const key = String(first.appointment_key);
	const withKey = JSON.parse(JSON.stringify(params).replaceAll(KEY, key)) as IDataObject;
	const result = await run(sb, withKey, { version, input: [{}, { n: 1 }] }).catch(
		(thrown: Error) => ({ items: [], error: thrown }),
	);
	const requests = (await admin.requests()).map((r) => {
		const e = r as unknown as IDataObject;
		return { method: e.method, url: e.url ?? e.path, query: e.query, body: e.body };
	});
	const error = result.error as (Error & IDataObject) | undefined;
	return mask(
		{
			params,
			requests,
			items: result.items.map((out) => out.map((i) => i.json)),
			error: error && {
				message: error.message,
				description: error.description,
				itemIndex: error.itemIndex ?? (error.context as IDataObject)?.itemIndex,
			},
			emails: (await admin.emails()).map((e) => e.type),
		},
		key,
	);
}

test('record', async () => {
	jest.useFakeTimers({
		now: NOW,
		doNotFake: [
			'nextTick',
			'setImmediate',
			'clearImmediate',
			'setTimeout',
			'clearTimeout',
			'setInterval',
			'clearInterval',
			'queueMicrotask',
			'hrtime',
			'performance',
		],
	});
	/* eslint-disable @typescript-eslint/no-require-imports */
	const { Appointments } = require('../../nodes/Appointments/Appointments.node');
	const { AppointmentsTrigger } = require('../../nodes/Appointments/AppointmentsTrigger.node');
	const {
		AppointmentsPollingTrigger,
	} = require('../../nodes/Appointments/AppointmentsPollingTrigger.node');
	const { AppointmentsApi } = require('../../credentials/AppointmentsApi.credentials');
	/* eslint-enable @typescript-eslint/no-require-imports */
	const action = new Appointments() as IVersionedNodeType;
	const out: IDataObject = {
		descriptions: {
			action: describe_(action),
			trigger: describe_(new AppointmentsTrigger()),
			polling: describe_(new AppointmentsPollingTrigger()),
			credential: JSON.parse(JSON.stringify(new AppointmentsApi())),
		},
	};
	const sb = await start();
	const admin = adminClient(sb);
	const runs: unknown[] = [];
	try {
		for (const [v, type] of Object.entries(action.nodeVersions)) {
			const version = Number(v);
			const props = type.description.properties;
			const resources = (props.find((p) => p.name === 'resource')?.options ?? []).map(
				(o) => (o as { value: string }).value,
			);
			for (const resource of resources) {
				const opProp = props.find(
					(p) => p.name === 'operation' && shown(p, { resource }, version),
				)!;
				for (const o of opProp.options ?? []) {
					const base: IDataObject = { resource, operation: (o as { value: string }).value };
					const visible = props.filter(
						(p) => !['resource', 'operation'].includes(p.name) && shown(p, base, version),
					);
					const locator = visible.find((p) => p.type === 'resourceLocator');
					if (locator) base[locator.name] = { __rl: true, mode: 'id', value: KEY };
					runs.push({ version, ...((await record(sb, admin, base, version)) as object) });
					for (const p of visible)
						for (const value of valuesFor(p))
							runs.push({
								version,
								...((await record(
									sb,
									admin,
									{ ...base, [p.name]: value as never },
									version,
								)) as object),
							});
				}
			}
		}
	} finally {
		await sb.close();
		jest.useRealTimers();
	}
	out.runs = runs;
	writeFileSync(OUT, JSON.stringify(out, null, 1));
	expect(runs.length).toBeGreaterThan(100);
});
