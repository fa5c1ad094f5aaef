#!/usr/bin/env node
// Runs `n8n-node lint` (strict mode, the template eslint.config.mjs unchanged) on exactly what is published:
// package.json, credentials/ and nodes/. The CLI always lints `.`, and the template config has no way to
// leave out the sandbox, tests, benchmarks and scripts (they are not part of the package and legitimately use
// process, fastify, timers...), so the package's own files are copied into .tmp/lint-package/ with a link to
// node_modules, and the CLI runs there. Extra arguments (e.g. --fix is not supported here) are passed on.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stage = path.join(root, '.tmp', 'lint-package');
fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(stage, { recursive: true });
for (const entry of [
	'package.json',
	'eslint.config.mjs',
	'tsconfig.json',
	'credentials',
	'nodes',
]) {
	fs.cpSync(path.join(root, entry), path.join(stage, entry), { recursive: true });
}
fs.symlinkSync(path.join(root, 'node_modules'), path.join(stage, 'node_modules'), 'dir');

const cli = path.join(root, 'node_modules', '.bin', 'n8n-node');
const result = spawnSync(cli, ['lint', ...process.argv.slice(2)], { cwd: stage, stdio: 'inherit' });
process.exit(result.status ?? 1);
