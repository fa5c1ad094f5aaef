/**
 * `npm run dev` started as an IDE, a script or a process manager starts it (a process group of its own): SIGTERM or
 * SIGINT to npm's process alone unpublishes the trigger example and stops everything it started, as a terminal's
 * Ctrl-C does: no process of it left, n8n's, the sandbox's and the mail sink's ports free. Its own n8n user folder
 * (APPOINTMENTS_DEV_FOLDER, a copy of the run's template); the second start is a later run. `npm run sandbox`:
 * test/scripts/npmSignals.test.ts.
 */
import fs from 'node:fs';

import { E2E_TEMPLATE_ENV, e2eUserFolder } from '../helpers/e2e';
import { killLeft, npmRun, portFree, stillRunning, tree, type NpmRun } from '../helpers/npmRun';

const folder = e2eUserFolder('e2e-dev-signals');
const template = process.env[E2E_TEMPLATE_ENV];
if (template) fs.cpSync(template, folder, { recursive: true });

let run: NpmRun | undefined;
let pids: number[] = [];
afterEach(() => {
	if (run) killLeft([-run.pid, ...pids]);
	run = undefined;
	pids = [];
});

test.each(['SIGTERM', 'SIGINT'] as const)(
	'%s to the npm process of `npm run dev` unpublishes the trigger and stops n8n, the sandbox and the mail sink',
	async (signal) => {
		run = npmRun('dev', [], { APPOINTMENTS_DEV_FOLDER: folder });
		await run.waitFor(/Ready in \d+ s\./, 10 * 60_000);
		const port = (label: string) =>
			Number(run!.output().match(new RegExp(`${label}\\s+https?://[^:]+:(\\d+)`))![1]);
		const ports = [
			port('n8n:'),
			port('Sandbox:'),
			Number(run.output().match(/SMTP 127\.0\.0\.1:(\d+)/)![1]),
		];
		pids = tree(run.pid);
		expect(pids.length).toBeGreaterThan(3); // npm, our node, the guard and n8n, its task runner
		for (const p of ports) expect(await portFree(p)).toBe(false);
		process.kill(run.pid, signal);
		expect(await run.exitedWithin(60_000)).toEqual({ code: 0, signal: null });
		expect(run.output()).toContain(
			'Trigger workflow unpublished; the sandbox holds no subscription of this n8n any more.',
		);
		expect(run.output()).toContain('Stopped n8n and the sandbox.');
		expect(await stillRunning(pids, 15_000)).toEqual([]);
		for (const p of ports) expect(await portFree(p)).toBe(true);
	},
	15 * 60_000,
);
