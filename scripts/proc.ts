/**
 * Child processes in process groups of their own, so that stopping one stops everything it spawned
 * (n8n starts task runners), and a registry that stops them all on exit and on signals.
 * Each group is led by scripts/guard.cjs, which stops the command when our process goes away without
 * running any handler (SIGKILL, or jest exiting on Ctrl-C: its sandboxed `process` never sees our listeners).
 */
import { spawn, type ChildProcess, type SpawnOptions, type StdioOptions } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { NODE24 } from './paths';

const GUARD = path.join(__dirname, 'guard.cjs');

export interface Managed {
	name: string;
	child: ChildProcess;
	exited: Promise<number | null>;
	stop(timeoutMs?: number): Promise<void>;
}

const running = new Set<Managed>();

function killGroup(pid: number | undefined, signal: NodeJS.Signals) {
	if (!pid) return;
	try {
		process.kill(-pid, signal);
	} catch {
		/* group already gone */
	}
}

export function spawnGroup(name: string, cmd: string, args: string[], opts: SpawnOptions): Managed {
	// stdin of the guard is a pipe from us: end-of-file there means we are gone.
	const given = opts.stdio ?? 'pipe';
	const stdio = (typeof given === 'string' ? [given, given, given] : [...given]) as Exclude<
		StdioOptions,
		string
	>;
	stdio[0] = 'pipe';
	const child = spawn(NODE24, [GUARD, cmd, ...args], { ...opts, stdio, detached: true });
	(child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
	let alive = true;
	const exited = new Promise<number | null>((resolve) => {
		child.once('exit', (code) => {
			alive = false;
			resolve(code);
		});
		child.once('error', () => {
			alive = false;
			resolve(null);
		});
	});
	const m: Managed = {
		name,
		child,
		exited,
		async stop(timeoutMs = 15000) {
			running.delete(m);
			if (alive) killGroup(child.pid, 'SIGTERM');
			const timer = new Promise<'timeout'>((r) => {
				const t = setTimeout(() => r('timeout'), timeoutMs);
				t.unref();
			});
			if ((await Promise.race([exited, timer])) === 'timeout') killGroup(child.pid, 'SIGKILL');
			await exited;
			// Leftovers of the group (task runners) get no second chance.
			killGroup(child.pid, 'SIGKILL');
		},
	};
	running.add(m);
	return m;
}

/** Synchronous last resort for process 'exit': SIGKILL every group still registered. */
function killAllSync() {
	for (const m of running) killGroup(m.child.pid, 'SIGKILL');
	running.clear();
}
process.once('exit', killAllSync);

export async function stopAll(): Promise<void> {
	await Promise.all([...running].map((m) => m.stop()));
}

export async function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.once('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address() as net.AddressInfo;
			srv.close(() => resolve(port));
		});
	});
}

/** `port` when it is free on 127.0.0.1 (stable URLs from one run to the next), else any free port. */
export async function preferredPort(port: number): Promise<number> {
	const free = await new Promise<boolean>((resolve) => {
		const srv = net.createServer();
		srv.unref();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
	return free ? port : freePort();
}

/**
 * Polls `check` until it returns a value other than undefined, or throws after the deadline.
 * `abort` is asked before every attempt: an error it returns is thrown at once (e.g. the process we wait for died).
 */
export async function pollUntil<T>(
	what: string,
	check: () => Promise<T | undefined>,
	{
		timeoutMs = 30000,
		intervalMs = 250,
		abort,
	}: { timeoutMs?: number; intervalMs?: number; abort?: () => Error | undefined } = {},
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	for (;;) {
		const stop = abort?.();
		if (stop) throw stop;
		try {
			const v = await check();
			if (v !== undefined) return v;
		} catch (e) {
			lastError = e;
		}
		if (Date.now() > deadline) {
			throw new Error(
				`Timed out after ${timeoutMs} ms waiting for ${what}` +
					(lastError ? ` (last error: ${(lastError as Error).message})` : ''),
			);
		}
		await new Promise((r) => setTimeout(r, intervalMs));
	}
}

/**
 * For runners without their own shutdown logic (the e2e suite): on SIGINT/SIGTERM/SIGHUP kill every process
 * group we started, then exit. Our children live in groups of their own, so a terminal's Ctrl-C never reaches them.
 */
export function killAllOnSignals(): void {
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.once(sig, () => {
			killAllSync();
			process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1));
		});
	}
}
