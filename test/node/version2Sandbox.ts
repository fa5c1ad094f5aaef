/**
 * Set-up shared by the version2.*.test.ts files: one sandbox per file (seed 140, 20 a page), reset before each
 * test with its request log emptied, its appointments handed to `ready` with the sandbox and its admin client; and
 * `rl`, a resource locator value as the editor saves it.
 */
import type { IDataObject } from 'n8n-workflow';

import { useSandbox, type Admin, type Sandbox } from './helpers';

export function useVersion2Sandbox(
	ready: (started: { sb: Sandbox; admin: Admin; all: IDataObject[] }) => void,
): void {
	let sb: Sandbox;
	let admin: Admin;
	useSandbox({ seed: 140, seedValue: 12, pageSize: 20 }, (started) => ({ sb, admin } = started));

	beforeEach(async () => {
		await admin.reset();
		const all = await admin.appointments();
		await admin.clearRequests();
		ready({ sb, admin, all });
	});
}

export const rl = (value: string, mode = 'list') => ({ __rl: true, mode, value });
