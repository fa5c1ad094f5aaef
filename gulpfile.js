// Build: empty dist/, compile the package with tsc, then copy the node and credential icons into dist/.
const { src, dest, series } = require('gulp');
const { execFileSync } = require('child_process');
const path = require('path');

// A file moved or deleted in the sources must not live on in dist/ (n8n and npm pack would ship it).
function clean(done) {
	require('fs').rmSync(path.join(__dirname, 'dist'), { recursive: true, force: true });
	done();
}

function compile(done) {
	execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], {
		stdio: 'inherit',
		cwd: __dirname,
	});
	done();
}

function icons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(dest(path.join(__dirname, 'dist')));
}

exports.clean = clean;
exports.compile = compile;
exports.icons = icons;
exports.default = series(clean, compile, icons);
