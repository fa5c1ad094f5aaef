/**
 * `npm run test:compat [-- <jest args>]`: the compatibility suites (jest.compat.config.js) on every n8n version of
 * docs/compatibility.md, one after the other (each installs its n8n under .dev/n8n-<version> on the first run).
 * N8N_COMPAT_VERSIONS="1.123.81" picks versions; "{version}" in an argument is replaced by the version, e.g.
 * `--json --outputFile=.tmp/jest-compat-{version}.json`.
 */
import { spawnSync } from 'node:child_process';
import { node24Env } from './install';
import { N8N_VERSIONS } from './paths';

const versions = process.env.N8N_COMPAT_VERSIONS?.split(/[\s,]+/).filter(Boolean) ?? [...N8N_VERSIONS];
const failed: string[] = [];
for (const version of versions) {
	console.log(`\n=== n8n ${version}`);
	const args = process.argv.slice(2).map((a) => a.split('{version}').join(version));
	const r = spawnSync('npx', ['jest', '-c', 'jest.compat.config.js', ...args], {
		stdio: 'inherit',
		env: node24Env({ N8N_DEV_VERSION: version }),
	});
	if (r.status !== 0) failed.push(version);
}
console.log(failed.length ? `\nFailed on n8n ${failed.join(', ')}` : `\nPassed on n8n ${versions.join(', ')}`);
process.exit(failed.length ? 1 : 0);
