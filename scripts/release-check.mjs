#!/usr/bin/env node
// What the release workflow checks before it publishes anything that cannot be taken back:
// - package.json's author and repository are real, not the placeholders marked FILL-IN (a package on npm keeps
//   them for ever; npm's provenance and trusted publishing check `repository.url` against the repository the
//   workflow runs in, GITHUB_REPOSITORY, so it must name that one), and a GitHub homepage is that repository's;
// - no link in the published files (dist/), the README or the CHANGELOG points to another copy of this repository
//   (the nodes' documentation links, the CHANGELOG's compare links), and none is a placeholder;
// - the npm that will publish is >= 11.5.1, the first version with trusted publishing (OIDC).
// Usage: node scripts/release-check.mjs [root]. Prints one line per problem and exits 1, or says it is ready.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PLACEHOLDER = /\bFILL-IN\b/;
const DUMMY_EMAIL = /@(example\.(com|org|net)|[^@]*\.(invalid|test|example|localhost))$/i;
const GITHUB_REPO = /github\.com[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?(?=[/#?"'\s)\]`]|$)/gi;
const MIN_NPM = [11, 5, 1];

const root = path.resolve(
	process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'),
);
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

/** "owner/name" of the first GitHub repository a text names, or undefined. */
function githubRepo(text) {
	const m = [...String(text ?? '').matchAll(GITHUB_REPO)][0];
	return m ? `${m[1]}/${m[2]}` : undefined;
}

function authorProblems() {
	const a =
		typeof pkg.author === 'string'
			? { name: pkg.author.replace(/\s*[<(].*$/, ''), email: /<([^>]*)>/.exec(pkg.author)?.[1] }
			: (pkg.author ?? {});
	const problems = [];
	if (!a.name || PLACEHOLDER.test(a.name))
		problems.push(
			`package.json author.name is a placeholder (${JSON.stringify(a.name ?? '')}): put the publisher's name`,
		);
	if (!a.email || PLACEHOLDER.test(a.email) || DUMMY_EMAIL.test(a.email)) {
		problems.push(
			`package.json author.email is a placeholder (${JSON.stringify(a.email ?? '')}): put an address that reaches the maintainers`,
		);
	}
	return problems;
}

/** The repository package.json names ("owner/name"), and what is wrong with it. */
function repositoryProblems() {
	const url = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
	const repo = githubRepo(url);
	const problems = [];
	if (!repo || PLACEHOLDER.test(url))
		problems.push(
			`package.json repository.url is a placeholder or not a GitHub repository (${JSON.stringify(url ?? '')})`,
		);
	const running = process.env.GITHUB_REPOSITORY;
	if (repo && running && repo.toLowerCase() !== running.toLowerCase()) {
		problems.push(
			`package.json repository.url names ${repo}, but this workflow runs in ${running}: npm refuses provenance from another repository`,
		);
	}
	const home = githubRepo(pkg.homepage);
	if (!pkg.homepage || PLACEHOLDER.test(pkg.homepage))
		problems.push(`package.json homepage is a placeholder (${JSON.stringify(pkg.homepage ?? '')})`);
	else if (home && repo && home.toLowerCase() !== repo.toLowerCase())
		problems.push(`package.json homepage names github.com/${home}, not the repository (${repo})`);
	return { repo, problems };
}

function filesToScan() {
	const files = ['README.md', 'CHANGELOG.md']
		.map((f) => path.join(root, f))
		.filter((f) => fs.existsSync(f));
	const walk = (dir) => {
		if (!fs.existsSync(dir)) return;
		for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
			const p = path.join(dir, e.name);
			if (e.isDirectory()) walk(p);
			else if (/\.(js|json)$/.test(e.name)) files.push(p);
		}
	};
	walk(path.join(root, 'dist'));
	return files;
}

/** Links to a copy of this repository other than `repo` (or any link, while `repo` is unknown), and placeholders. */
function linkProblems(repo) {
	const names = new Set(
		[pkg.name, repo?.split('/')[1]].filter(Boolean).map((n) => n.toLowerCase()),
	);
	const problems = [];
	for (const file of filesToScan()) {
		const text = fs.readFileSync(file, 'utf8');
		const rel = path.relative(root, file);
		const others = new Set();
		for (const m of text.matchAll(GITHUB_REPO)) {
			const found = `${m[1]}/${m[2]}`;
			if (names.has(m[2].toLowerCase()) && found.toLowerCase() !== repo?.toLowerCase())
				others.add(found);
		}
		for (const o of others)
			problems.push(
				`${rel} links to github.com/${o}, not to the repository of package.json (${repo ?? 'unknown'})`,
			);
		if (PLACEHOLDER.test(text)) problems.push(`${rel} still has a FILL-IN placeholder`);
	}
	return problems;
}

function npmProblems() {
	const version = execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim();
	const parts = version.split('.').map((n) => parseInt(n, 10) || 0);
	const order = MIN_NPM.reduce((r, min, i) => r || Math.sign(parts[i] - min), 0);
	return order < 0
		? [
				`npm ${version} cannot publish with trusted publishing (OIDC): it needs npm >= ${MIN_NPM.join('.')}`,
			]
		: [];
}

const { repo, problems: repoProblems } = repositoryProblems();
const problems = [...authorProblems(), ...repoProblems, ...linkProblems(repo), ...npmProblems()];
if (problems.length) {
	console.error(
		`Not ready to publish ${pkg.name}@${pkg.version} (RELEASING.md, "Once per repository"):\n- ${problems.join('\n- ')}`,
	);
	process.exit(1);
}
console.log(
	`Ready to publish ${pkg.name}@${pkg.version} from ${repo}: author, repository, homepage and links are real; npm is recent enough.`,
);
