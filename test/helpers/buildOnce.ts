/**
 * globalSetup of the e2e and compatibility configs: builds and packs the package once for the whole jest run, so
 * each file's stack installs that tarball instead of building again (tsc and npm pack take 10-50 s per file here).
 * The environment is inherited by jest's test processes. A run started by scripts/compat.ts has it already.
 */
import { buildAndPack, PACKED_TARBALL_ENV } from '../../scripts/n8n';

export default function buildOnce(): void {
	process.env[PACKED_TARBALL_ENV] = buildAndPack((m) =>
		process.stderr.write(`[jest globalSetup] ${m}\n`),
	);
}
