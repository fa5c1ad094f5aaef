/**
 * `npm run test:compat [-- <jest args>]`: the compatibility suites (jest.compat.config.js) on every n8n version of
 * docs/compatibility.md. What the versions share is prepared first, one step at a time (the package built and
 * packed once, each n8n installed under .dev/n8n-<version> on the first run, verdaccio, the certificate); then the
 * versions run at the same time (and two files of each version at a time: jest.compat.config.js), each line of
 * output prefixed with its version: their suites mostly wait for n8n (starts, polls, npm's retries), and every
 * stack has its own ports and folders.
 * N8N_COMPAT_VERSIONS="1.123.81" picks versions; "{version}" in an argument is replaced by the version, e.g.
 * `--json --outputFile=.tmp/jest-compat-{version}.json`.
 */
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { ensureVerdaccio } from '../test/helpers/registry';
import { ensureCert } from './cert';
import { ensureN8nInstalled, node24Env } from './install';
import { buildAndPack, PACKED_TARBALL_ENV } from './n8n';
import { N8N_VERSIONS } from './paths';

const versions = process.env.N8N_COMPAT_VERSIONS?.split(/[\s,]+/).filter(Boolean) ?? [
	...N8N_VERSIONS,
];

/** One version's jest run; resolves to whether it passed. */
function runVersion(version: string, tarball: string): Promise<boolean> {
	const args = process.argv.slice(2).map((a) => a.split('{version}').join(version));
	const child = spawn('npx', ['jest', '-c', 'jest.compat.config.js', ...args], {
		stdio: ['ignore', 'pipe', 'pipe'],
		env: node24Env({ N8N_DEV_VERSION: version, [PACKED_TARBALL_ENV]: tarball }),
	});
	for (const [from, to] of [
		[child.stdout, process.stdout],
		[child.stderr, process.stderr],
	] as const) {
		readline
			.createInterface({ input: from })
			.on('line', (line) => to.write(`[n8n ${version}] ${line}\n`));
	}
	return new Promise((resolve) => child.on('close', (code) => resolve(code === 0)));
}

async function main(): Promise<void> {
	const log = (m: string) => console.log(`[compat] ${m}`);
	let tarball: string;
	try {
		tarball = buildAndPack(log);
		for (const version of versions) ensureN8nInstalled(log, version);
		ensureVerdaccio(log);
		ensureCert(); // here, before the jest workers that all read it could each write a new one
	} catch (e) {
		console.error(`ERROR: could not prepare the compatibility run: ${(e as Error).message}`);
		process.exit(1);
	}
	console.log(`\n=== n8n ${versions.join(' and ')}, at the same time`);
	const passed = await Promise.all(versions.map((v) => runVersion(v, tarball)));
	const failed = versions.filter((_, i) => !passed[i]);
	console.log(
		failed.length
			? `\nFailed on n8n ${failed.join(', ')}`
			: `\nPassed on n8n ${versions.join(', ')}`,
	);
	process.exit(failed.length ? 1 : 0);
}

void main();
