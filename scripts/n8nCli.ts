/** n8n's CLI against a user folder a server may be running on: any command, `execute`, and the run data it logs. */
import fs from 'node:fs';
import path from 'node:path';
import { n8nEnv, tail, type N8n } from './n8n';
import { n8nPaths, NODE24 } from './paths';
import { freePort, spawnGroup } from './proc';

export interface CliResult {
	code: number | null;
	stdout: string;
	stderr: string;
	log: string;
}

/**
 * Runs an n8n CLI command against the same user folder (same database). While a server runs, the CLI gets
 * a task-runner broker port of its own; its logs go to a file so stdout holds only the command's output.
 */
export type CliTarget = Pick<N8n, 'userFolder' | 'port' | 'cert'> & {
	/** Environment beyond n8nEnv's (queue mode: Postgres, Redis, encryption key). */
	extraEnv?: Record<string, string>;
	/** The installed n8n version whose CLI runs (default N8N_VERSION). */
	version?: string;
};

export async function n8nCli(
	n8n: CliTarget,
	args: string[],
	timeoutMs = 180000,
): Promise<CliResult> {
	const brokerPort = await freePort();
	const logFile = path.join(n8n.userFolder, `cli-${Date.now()}-${process.pid}.log`);
	const env = n8nEnv(n8n.userFolder, n8n.port, n8n.cert, brokerPort, {
		...n8n.extraEnv,
		N8N_LOG_OUTPUT: 'file',
		N8N_LOG_FILE_LOCATION: logFile,
	});
	// A process group of its own, registered like the server, so Ctrl-C or the end of the suite stops it too.
	const m = spawnGroup(`n8n ${args[0]}`, NODE24, [n8nPaths(n8n.version).bin, ...args], {
		cwd: n8n.userFolder,
		env,
	});
	let stdout = '';
	let stderr = '';
	m.child.stdout!.on('data', (d) => (stdout += d));
	m.child.stderr!.on('data', (d) => (stderr += d));
	const closed = new Promise((resolve) => m.child.once('close', resolve));
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		void m.stop(0);
	}, timeoutMs);
	const code = await m.exited;
	clearTimeout(timer);
	await m.stop(0); // task runners of the CLI, if any survived
	await closed; // all of stdout/stderr read (nothing holds the pipes any more)
	const log = tail(logFile, 200000);
	fs.rmSync(logFile, { force: true });
	if (timedOut)
		throw new Error(
			`n8n ${args.join(' ')} timed out after ${timeoutMs} ms:\n${(stderr + log).slice(-4000)}`,
		);
	return { code, stdout, stderr, log };
}

export async function n8nCliOk(n8n: CliTarget, args: string[]): Promise<CliResult> {
	const r = await n8nCli(n8n, args);
	if (r.code !== 0) {
		throw new Error(
			`n8n ${args.join(' ')} failed (exit ${r.code}):\n${(r.stderr + r.stdout + r.log).slice(-4000)}`,
		);
	}
	return r;
}

export interface CliRun {
	code: number | null;
	/** The run data n8n's `execute` command logs on success (undefined when the workflow failed). */
	run?: any;
	log: string;
}

/** `n8n execute --id`: runs a workflow once from the CLI; parses the run data out of the JSON log. */
export async function executeWorkflow(
	n8n: Pick<N8n, 'userFolder' | 'port' | 'cert'>,
	workflowId: string,
): Promise<CliRun> {
	const r = await n8nCli(n8n, ['execute', `--id=${workflowId}`, '--rawOutput']);
	let run: any;
	for (const line of r.log.split('\n')) {
		if (!line.startsWith('{')) continue;
		try {
			const entry = JSON.parse(line);
			if (
				typeof entry.message === 'string' &&
				entry.message.startsWith('{') &&
				entry.message.includes('"resultData"')
			) {
				run = JSON.parse(entry.message);
			}
		} catch {
			/* not a JSON line */
		}
	}
	return { code: r.code, run: r.code === 0 ? run : undefined, log: r.log + r.stdout + r.stderr };
}

/** The JSON of every item a node output (all runs, all outputs) in run data of n8n's execute/public API. */
export function nodeOutput(run: any, nodeName: string, output?: number): any[] {
	const runs = run?.data?.resultData?.runData?.[nodeName];
	if (!runs) return [];
	return runs.flatMap((r: any) =>
		(r.data?.main ?? [])
			.filter((_: unknown, i: number) => output === undefined || i === output)
			.flatMap((items: any[] | null) => (items ?? []).map((i) => i.json)),
	);
}
