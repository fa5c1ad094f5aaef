/**
 * The action node through the project's n8n-core harness, the sandbox's page size, and an explicit GC.
 */
import type { INodeType } from 'n8n-workflow';
import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';
import { requireBuilt } from './build';
import { API_TOKEN, Client, requireProjectFile, type PartContext } from './common';

type RunNode = typeof import('../../test/helpers/n8n').runNode;

/** runNode from the harness, bound to the built action node (what n8n runs; build.ts says why not the sources). */
export function loadRunNode(ctx: PartContext): { runNode: RunNode } {
	const mod = requireBuilt<{ Appointments?: new () => INodeType }>(
		ctx,
		'nodes/Appointments/Appointments.node.js',
	);
	if (typeof mod.Appointments !== 'function')
		throw new Error('the build has no Appointments node class');
	const nodeType = new mod.Appointments();
	const harness = requireProjectFile<{ runNode: RunNode }>(
		'test/helpers/n8n',
		'The n8n-core harness',
	);
	return { runNode: (options) => harness.runNode({ nodeType, ...options }) };
}

let gcFn: (() => void) | undefined;

/** A full garbage collection (exposed at run time when node was not started with --expose-gc). */
export function gc(): void {
	if (!gcFn) {
		const global = (globalThis as { gc?: () => void }).gc;
		if (global) gcFn = global;
		else {
			v8.setFlagsFromString('--expose-gc');
			gcFn = runInNewContext('gc') as () => void;
		}
	}
	gcFn();
}

/**
 * Sets the sandbox's default page size (the node never sends page_size) through POST /__sandbox/config/, and
 * checks that an unparameterised list request now answers pages of that size.
 */
export async function configurePageSize(
	admin: Client,
	baseUrl: string,
	pageSize: number,
): Promise<void> {
	const current = await pageLength(baseUrl);
	if (current === pageSize) return;
	const config = (await admin.ok('GET', '/__sandbox/config/')) as Record<string, unknown>;
	const key =
		Object.keys(config).find((k) => /^(default_?)?page_?size$/i.test(k)) ??
		(config.pagination && typeof config.pagination === 'object' ? undefined : 'pageSize');
	let body: Record<string, unknown>;
	if (key) body = { [key]: pageSize };
	else body = { pagination: { ...(config.pagination as object), pageSize } };
	const r = await admin.call('POST', '/__sandbox/config/', body);
	if (r.status >= 300) {
		throw new Error(
			`the sandbox offers no configurable default page size (POST /__sandbox/config/ ${JSON.stringify(body)} answered ${r.status} ${JSON.stringify(r.body)}); its pages have ${current} records`,
		);
	}
	const got = await pageLength(baseUrl);
	if (got !== pageSize) {
		throw new Error(
			`the sandbox does not apply the default page size: after POST /__sandbox/config/ ${JSON.stringify(body)} a list page has ${got} records, expected ${pageSize}`,
		);
	}
}

/** Records in the first page of an unparameterised list request (what the node gets). */
async function pageLength(baseUrl: string): Promise<number | undefined> {
	const api = new Client(baseUrl, API_TOKEN);
	try {
		const page = await api.ok('GET', '/api/v3/appointments/');
		return Array.isArray(page) ? page.length : page.results?.length;
	} finally {
		await api.close();
	}
}
