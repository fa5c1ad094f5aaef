/**
 * Debian packages a script needs: installed with apt-get when missing and we are root, otherwise a SetupError says
 * what to install. (scripts/browser.ts and scripts/queue/services.ts do the same for chromium and the queue stack.)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export class SetupError extends Error {}

function onPath(command: string): boolean {
	return (process.env.PATH ?? '')
		.split(path.delimiter)
		.some((dir) => dir && fs.existsSync(path.join(dir, command)));
}

/**
 * `needs` maps a command to the Debian package that provides it, e.g. { 'g++': 'g++', make: 'make' }.
 * `why` completes "... needs Debian's X" in the message.
 */
export function ensureAptPackages(
	needs: Record<string, string>,
	why: string,
	log: (m: string) => void = console.log,
): void {
	const missing = [
		...new Set(
			Object.entries(needs)
				.filter(([cmd]) => !onPath(cmd))
				.map(([, pkg]) => pkg),
		),
	];
	if (missing.length === 0) return;
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	if (!isRoot) {
		throw new SetupError(
			`${why} needs Debian's ${missing.join(', ')}. Install as root: "apt-get update && apt-get install -y ${missing.join(' ')}".`,
		);
	}
	log(`Installing ${missing.join(', ')} for ${why} (apt-get install -y; first run only)...`);
	for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...missing]]) {
		const r = spawnSync('apt-get', args, {
			stdio: ['ignore', 'ignore', 'inherit'],
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
		});
		if (r.status !== 0)
			throw new SetupError(
				`apt-get ${args.join(' ')} failed (exit ${r.status}); install ${missing.join(' ')} by hand`,
			);
	}
	const still = Object.keys(needs).filter((cmd) => !onPath(cmd));
	if (still.length)
		throw new SetupError(
			`${still.join(', ')} still missing after apt-get install ${missing.join(' ')}`,
		);
}
