// Build: empty dist/, type-check with the package's strict tsconfig, bundle credentials/ and nodes/ into one file
// (dist/appointments.js), write each file n8n loads (package.json's n8n.nodes and n8n.credentials) as a re-export of
// its class from that bundle, and copy the icons and codex files beside them.
// One bundle because n8n requires every node file as it starts: one file is resolved and compiled once, where the
// 66 modules tsc emitted took twice as long as n8n's own Airtable node to load (bench part 4, docs/benchmarks.md).
const { src, dest, series } = require('gulp');
const { execFileSync } = require('child_process');
const esbuild = require('esbuild');
const fs = require('fs');
const path = require('path');
const pkg = require('./package.json');

const BUNDLE = 'dist/appointments.js';

/** The files n8n loads, the sources they come from, and the class n8n takes from each (named as its file). */
const ENTRIES = [...pkg.n8n.nodes, ...pkg.n8n.credentials].map((file) => ({
	file,
	source: `./${file.replace(/^dist\//, '').replace(/\.js$/, '.ts')}`,
	name: path.basename(file).split('.')[0],
}));

// A file moved or deleted in the sources must not live on in dist/ (n8n and npm pack would ship it).
function clean(done) {
	fs.rmSync(path.join(__dirname, 'dist'), { recursive: true, force: true });
	done();
}

function typecheck(done) {
	execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], {
		stdio: 'inherit',
		cwd: __dirname,
	});
	done();
}

function bundle() {
	return esbuild.build({
		stdin: {
			contents: ENTRIES.map((e) => `export { ${e.name} } from '${e.source}';`).join('\n'),
			resolveDir: __dirname,
			sourcefile: 'package-entries.ts',
			loader: 'ts',
		},
		bundle: true,
		// n8n-workflow and luxon are n8n's own copies at run time (a peer dependency, no runtime dependencies).
		packages: 'external',
		platform: 'node',
		format: 'cjs',
		target: 'es2019',
		outfile: path.join(__dirname, BUNDLE),
		sourcemap: true,
		sourcesContent: false,
		logLevel: 'warning',
	});
}

function entries(done) {
	for (const { file, name } of ENTRIES) {
		const bundle = path.relative(path.dirname(file), BUNDLE).replace(/^(?!\.)/, './');
		fs.mkdirSync(path.join(__dirname, path.dirname(file)), { recursive: true });
		fs.writeFileSync(
			path.join(__dirname, file),
			`'use strict';\nexports.${name} = require('${bundle}').${name};\n`,
		);
	}
	done();
}

function assets() {
	return src(['nodes/**/*.{png,svg,json}', 'credentials/**/*.{png,svg,json}'], {
		base: '.',
		encoding: false,
	}).pipe(dest(path.join(__dirname, 'dist')));
}

exports.clean = clean;
exports.bundle = bundle;
exports.assets = assets;
exports.default = series(clean, typecheck, bundle, entries, assets);
