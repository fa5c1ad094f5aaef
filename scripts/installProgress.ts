/**
 * The first `npm run dev` installs n8n: minutes during which npm (at --loglevel=error) prints nothing. This runs
 * the install (scripts/install.ts) in a child process and says every 15 seconds how far it got, so a newcomer sees
 * it working instead of a silent terminal.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { n8nInstalled, partialInstallDir, SetupError } from './install';
import { N8N_VERSION, n8nCacheDir } from './paths';

/** The packages unpacked so far in an install folder (a scope's packages each count). */
export function countPackages(installDir: string): number {
	const modules = path.join(installDir, 'node_modules');
	let entries: string[];
	try {
		entries = fs.readdirSync(modules).filter((e) => !e.startsWith('.'));
	} catch {
		return 0;
	}
	let count = 0;
	for (const entry of entries) {
		if (!entry.startsWith('@')) count++;
		else count += fs.readdirSync(path.join(modules, entry)).length;
	}
	return count;
}

export function progressLine(version: string, elapsedMs: number, packages: number): string {
	const s = Math.round(elapsedMs / 1000);
	const elapsed =
		s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
	return `  … installing n8n ${version}: ${elapsed}, ${packages} packages so far (about 5 minutes in all, first run only)`;
}

/** Installs n8n unless it is there, printing a progress line every `everyMs`. */
export async function installN8nWithProgress(
	log: (m: string) => void,
	version = N8N_VERSION,
	everyMs = 15_000,
): Promise<void> {
	if (n8nInstalled(version)) return;
	const t0 = Date.now();
	// execArgv holds tsx's loader (--import tsx), so the child runs the TypeScript file as this process does.
	const child = spawn(
		process.execPath,
		[...process.execArgv, path.join(__dirname, 'install.ts'), version],
		{ stdio: 'inherit' },
	);
	const building = partialInstallDir(n8nCacheDir(version), child.pid ?? 0);
	const timer = setInterval(
		() => log(progressLine(version, Date.now() - t0, countPackages(building))),
		everyMs,
	);
	try {
		const code = await new Promise<number | null>((resolve, reject) => {
			child.once('error', reject);
			child.once('exit', resolve);
		});
		if (code !== 0)
			throw new SetupError(
				`installing n8n ${version} failed (exit code ${code}); see the messages above`,
			);
	} finally {
		clearInterval(timer);
	}
}
