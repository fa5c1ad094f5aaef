/*
 * Process-group guard: `node guard.cjs <command> [args...]`, started by scripts/proc.ts as the leader of a process
 * group of its own, with its stdin a pipe from the parent. It runs the command in the same group and stops it when
 * the parent goes away in any way (Ctrl-C, SIGKILL, a test runner exiting without running our handlers): the pipe
 * then reaches end-of-file. Exits with the command's exit code.
 */
'use strict';
const { spawn } = require('node:child_process');

const [cmd, ...args] = process.argv.slice(2);
const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
let exited = false;

// A group-wide SIGTERM/SIGINT (proc.ts's stop) reaches the command directly; the guard waits for it to exit.
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => undefined);

function parentGone() {
	if (exited) return;
	child.kill('SIGTERM');
	// Everything left in the group (the command and what it started) after a grace period.
	setTimeout(() => process.kill(-process.pid, 'SIGKILL'), 10000).unref();
}
process.stdin.on('end', parentGone);
process.stdin.on('close', parentGone);
process.stdin.on('error', parentGone);
process.stdin.resume();

child.on('error', (e) => {
	process.stderr.write(`cannot start ${cmd}: ${e.message}\n`);
	process.exit(127);
});
child.on('exit', (code, signal) => {
	exited = true;
	process.exit(code ?? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGINT' ? 2 : 15));
});
