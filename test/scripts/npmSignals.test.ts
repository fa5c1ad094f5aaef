/**
 * `npm run sandbox` started as an IDE, a script or a process manager starts it (a process group of its own) stops
 * everything it started when SIGTERM or SIGINT reaches npm's process alone, as a terminal's Ctrl-C (the whole group)
 * does: no process of it left, its ports free. `npm run dev`, the same with n8n: test/e2e/devSignals.test.ts.
 */
import { killLeft, npmRun, portFree, stillRunning, tree, type NpmRun } from '../helpers/npmRun';

let run: NpmRun | undefined;
let pids: number[] = [];
afterEach(() => {
	// A failed run's leftovers: its group (npm's) and whatever left it.
	if (run) killLeft([-run.pid, ...pids]);
	run = undefined;
	pids = [];
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
	test(`${signal} to the npm process of \`npm run sandbox\` stops the sandbox and its mail sink`, async () => {
		run = npmRun('sandbox', ['--port', '0', '--smtp-port', '0', '--seed', '20']);
		const [, port, smtpPort] = await run.waitFor(
			/SANDBOX_URL=http:\/\/127\.0\.0\.1:(\d+)[\s\S]*SANDBOX_SMTP_PORT=(\d+)/,
			60000,
		);
		pids = tree(run.pid);
		expect(await portFree(Number(port))).toBe(false);
		process.kill(run.pid, signal);
		expect(await run.exitedWithin(30000)).toEqual({ code: 0, signal: null });
		expect(await stillRunning(pids, 10000)).toEqual([]);
		expect([await portFree(Number(port)), await portFree(Number(smtpPort))]).toEqual([true, true]);
		expect(run.output()).toMatch(new RegExp(`${signal} received[\\s\\S]*sandbox: stopped`));
	}, 120000);
}
