/**
 * `npm run <script>` started as an IDE, a script or a process manager starts it: in a process group of its own (so
 * no terminal's Ctrl-C reaches its children), with signals sent to npm's process alone.
 *
 *   npmRun(script, args, env?)   starts it; its output so far, `waitFor` a line, its exit
 *   tree(pid)                    `pid` and the processes below it now (read from /proc)
 *   running(pids)                those of `pids` still running (a zombie counts as ended)
 *   portFree(port)               whether 127.0.0.1:`port` can be listened on again
 *   killLeft(pids)               SIGKILL to what is left (a failed test's clean-up)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

export interface NpmRun {
	child: ChildProcess;
	pid: number;
	output(): string;
	/** The first match of `re` in the output, waiting up to `timeoutMs`; throws with the output if npm exits first. */
	waitFor(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
	exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
	/** How it exited, or 'still running' after `timeoutMs`. */
	exitedWithin(
		timeoutMs: number,
	): Promise<{ code: number | null; signal: NodeJS.Signals | null } | 'still running'>;
}

export function npmRun(script: string, args: string[], env: NodeJS.ProcessEnv = {}): NpmRun {
	const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
		cwd: ROOT,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, ...env },
	});
	let out = '';
	child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
	child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
	const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
		child.once('exit', (code, signal) => r({ code, signal })),
	);
	let done = false;
	void exited.then(() => (done = true));
	return {
		child,
		pid: child.pid!,
		output: () => out,
		exited,
		exitedWithin: (timeoutMs) =>
			Promise.race([
				exited,
				new Promise<'still running'>((r) =>
					setTimeout(() => r('still running'), timeoutMs).unref(),
				),
			]),
		async waitFor(re, timeoutMs) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const m = out.match(re);
				if (m) return m;
				if (done || Date.now() > deadline)
					throw new Error(
						`npm run ${script}: no ${re} ${done ? 'before it exited' : 'in time'}:\n${out}`,
					);
				await new Promise((r) => setTimeout(r, 100));
			}
		},
	};
}

/** pid → [parent pid, state] of every process, from /proc/<pid>/stat (the name in parentheses may hold spaces). */
function processTable(): Map<number, { ppid: number; state: string }> {
	const table = new Map<number, { ppid: number; state: string }>();
	for (const name of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
			const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			table.set(Number(name), { ppid: Number(ppid), state });
		} catch {
			// ended while we read
		}
	}
	return table;
}

/** Every process below `pid` (children, their children, …), `pid` itself included. */
export function tree(pid: number): number[] {
	const table = processTable();
	const found = [pid];
	for (let i = 0; i < found.length; i++)
		for (const [p, { ppid }] of table) if (ppid === found[i] && !found.includes(p)) found.push(p);
	return found;
}

/** The processes of `pids` still running, with their command lines (zombies, ended but not reaped, are gone). */
export function running(pids: number[]): string[] {
	const table = processTable();
	return pids
		.filter((p) => table.has(p) && table.get(p)!.state !== 'Z')
		.map((p) => {
			let cmd = '';
			try {
				cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').slice(0, 120);
			} catch {
				// ended meanwhile
			}
			return `${p} ${cmd}`;
		});
}

/**
 * The processes of `pids` still running once all have ended or `timeoutMs` has passed: a child whose parent just
 * exited (tsx's esbuild service, n8n's task runner) ends a moment later, when its pipe or connection closes.
 */
export async function stillRunning(pids: number[], timeoutMs: number): Promise<string[]> {
	const deadline = Date.now() + timeoutMs;
	let left = running(pids);
	while (left.length > 0 && Date.now() < deadline) {
		await new Promise((r) => setTimeout(r, 100));
		left = running(pids);
	}
	return left;
}

export function portFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

/** SIGKILL what is left of `pids` (a test's clean-up after a failure). */
export function killLeft(pids: number[]): void {
	for (const p of pids) {
		try {
			process.kill(p, 'SIGKILL');
		} catch {
			// gone
		}
	}
}
