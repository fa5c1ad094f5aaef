#!/usr/bin/env node
// Checks the package as n8n's community-package scanner would, but on our own packed tarball
// (the published scanner downloads from the registry): the same ESLint rulesets on the compiled
// dist/*.js and package.json, on the TypeScript sources, plus our own packaging rules:
// only dist/, README, LICENSE and package.json in the tarball, under 150 kB, no runtime dependencies,
// and compiled code that requires nothing but n8n-workflow, zod, luxon, lodash, p-limit, crypto and relative files.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
	analyzePackage,
	SOURCE_FILE_PATTERNS,
} from '@n8n/scan-community-package/scanner/scanner.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const problems = [];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'appointments-scan-'));
try {
	const out = execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], {
		cwd: root,
		encoding: 'utf8',
	});
	const [info] = JSON.parse(out);
	const files = info.files.map((f) => f.path);
	const allowed = (f) =>
		f.startsWith('dist/') || ['package.json', 'README.md', 'LICENSE'].includes(f);
	const extra = files.filter((f) => !allowed(f));
	if (extra.length)
		problems.push(
			`tarball contains files outside dist/, README, LICENSE, package.json: ${extra.join(', ')}`,
		);
	for (const need of ['package.json', 'README.md', 'LICENSE'])
		if (!files.includes(need)) problems.push(`tarball lacks ${need}`);
	console.log(
		`tarball ${info.filename}: ${files.length} files, ${(info.size / 1024).toFixed(1)} kB packed, ${(info.unpackedSize / 1024).toFixed(1)} kB unpacked`,
	);
	if (info.size > 150 * 1024)
		problems.push(`tarball is ${(info.size / 1024).toFixed(1)} kB, over the 150 kB budget`);

	const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
	if (Object.keys(pkg.dependencies ?? {}).length)
		problems.push(`runtime dependencies: ${Object.keys(pkg.dependencies).join(', ')}`);
	for (const f of [...pkg.n8n.nodes, ...pkg.n8n.credentials])
		if (!files.includes(f)) problems.push(`n8n entry ${f} is not in the tarball`);

	const pkgDir = path.join(tmp, 'package');
	execFileSync('tar', ['-xzf', path.join(tmp, info.filename), '-C', tmp]);
	const allowedModules = new Set([
		'n8n-workflow',
		'zod',
		'zod/v4',
		'luxon',
		'lodash',
		'p-limit',
		'crypto',
		'node:crypto',
	]);
	for (const f of files.filter((f) => f.endsWith('.js'))) {
		const src = fs.readFileSync(path.join(pkgDir, f), 'utf8');
		for (const m of src.matchAll(/require\(["']([^"']+)["']\)/g)) {
			const mod = m[1];
			if (!mod.startsWith('.') && !allowedModules.has(mod) && !mod.startsWith('lodash/'))
				problems.push(`${f} requires '${mod}'`);
		}
	}

	const dist = await analyzePackage(pkgDir, ['**/*.js', 'package.json']);
	if (!dist.passed)
		problems.push(`scanner rules on the tarball: ${dist.message}\n${dist.details ?? ''}`);
	const source = await analyzePackage(root, SOURCE_FILE_PATTERNS);
	if (!source.passed)
		problems.push(`scanner rules on the sources: ${source.message}\n${source.details ?? ''}`);
} finally {
	fs.rmSync(tmp, { recursive: true, force: true });
}
if (problems.length) {
	console.error('Package scan failed:\n- ' + problems.join('\n- '));
	process.exit(1);
}
console.log(
	'Package scan passed: contents, size, dependencies and the community-package scanner rules.',
);
