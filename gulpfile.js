// Build: compile the package with tsc, then copy the node and credential icons into dist/.
const { src, dest, series } = require('gulp');
const { execFileSync } = require('child_process');
const path = require('path');

function compile(done) {
	execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], {
		stdio: 'inherit',
		cwd: __dirname,
	});
	done();
}

function icons() {
	return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(
		dest(path.join(__dirname, 'dist')),
	);
}

exports.compile = compile;
exports.icons = icons;
exports.default = series(compile, icons);
