/**
 * What can be checked of a release without publishing (RELEASING.md): the release workflow parses and runs the
 * steps n8n's verification needs in a sensible order, its tag check accepts the package's tag and refuses another,
 * `npm pack` of the built package holds exactly what n8n loads, and the changelog has the package's version.
 * Needs `npm run build` first (CI and the release workflow build before they test).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const WORKFLOW = path.join(ROOT, '.github', 'workflows', 'release.yml');

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, string>;
}

function releaseWorkflow(): { on: any; permissions: any; jobs: Record<string, { steps: Step[] }> } {
	return parse(fs.readFileSync(WORKFLOW, 'utf8'));
}

function steps(): Step[] {
	const jobs = Object.values(releaseWorkflow().jobs);
	expect(jobs).toHaveLength(1);
	return jobs[0].steps;
}

/** Index of the one step whose command matches. */
function stepRunning(pattern: RegExp): number {
	const found = steps()
		.map((s, i) => ({ s, i }))
		.filter(({ s }) => pattern.test(s.run ?? ''));
	if (found.length !== 1) throw new Error(`expected one step running ${pattern}, found ${found.length}`);
	return found[0].i;
}

describe('release workflow (.github/workflows/release.yml)', () => {
	test('runs on version tags only, with the OIDC permission provenance needs and nothing more', () => {
		const wf = releaseWorkflow();
		expect(wf.on).toEqual({ push: { tags: ['v*'] } });
		expect(wf.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
	});

	test('sets up Node with the npm registry, then lints, builds, tests and publishes with provenance, in that order', () => {
		const all = steps();
		const setup = all.findIndex((s) => s.uses?.startsWith('actions/setup-node@'));
		expect(setup).toBeGreaterThanOrEqual(0);
		expect(all[setup].with?.['registry-url']).toBe('https://registry.npmjs.org');
		const order = [/^npm ci\b/, /^npm run lint$/, /^npm run build$/, /^npm test\b/, /^npm publish --provenance\b/].map(stepRunning);
		expect(order[0]).toBeGreaterThan(setup);
		expect([...order].sort((a, b) => a - b)).toEqual(order);
		// Publishing is the last step: nothing after it can fail a release that is already public.
		expect(order[order.length - 1]).toBe(all.length - 1);
		expect(all[all.length - 1].env?.NODE_AUTH_TOKEN).toBe('${{ secrets.NPM_TOKEN }}');
	});

	test("its tag check accepts the package's tag and refuses any other", () => {
		const script = steps()[stepRunning(/GITHUB_REF_NAME/)].run!;
		const check = (tag: string) =>
			spawnSync('bash', ['-e', '-c', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, GITHUB_REF_NAME: tag } });
		expect(check(`v${pkg.version}`).status).toBe(0);
		const wrong = check('v999.0.0');
		expect(wrong.status).not.toBe(0);
		expect(wrong.stdout).toContain(`tag v999.0.0 is not v${pkg.version}`);
	});
});

describe('the packed package (npm pack --dry-run)', () => {
	let files: string[];
	let packed: { name: string; version: string };

	beforeAll(() => {
		if (!fs.existsSync(path.join(ROOT, 'dist'))) throw new Error('dist/ is missing: run "npm run build" before this test');
		const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
		expect(r.status).toBe(0);
		const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')));
		files = info.files.map((f: { path: string }) => f.path);
		packed = info;
	});

	test('is this package at the version of package.json', () => {
		expect(packed.name).toBe('n8n-nodes-appointments');
		expect(packed.version).toBe(pkg.version);
	});

	test('holds package.json, README, LICENSE and dist/ only, with every node and credential n8n loads', () => {
		expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE']));
		expect(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(f))).toEqual([]);
		expect(files).toEqual(expect.arrayContaining([...pkg.n8n.nodes, ...pkg.n8n.credentials]));
		// No sources, tests or the sandbox.
		expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
		expect(files.filter((f) => /(^|\/)(test|sandbox|scripts)\//.test(f))).toEqual([]);
	});

	test('has a compiled file for every source file and every icon and codex of nodes/ and credentials/', () => {
		const sources: string[] = [];
		const walk = (dir: string) => {
			for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
				const rel = `${dir}/${e.name}`;
				if (e.isDirectory()) walk(rel);
				else sources.push(rel);
			}
		};
		walk('nodes');
		walk('credentials');
		const expected = sources.map((f) => `dist/${f.replace(/\.ts$/, '.js')}`);
		expect(expected.length).toBeGreaterThan(10);
		expect(files.filter((f) => f.endsWith('.js') || f.endsWith('.svg') || f.endsWith('.json'))).toEqual(
			expect.arrayContaining(expected),
		);
	});
});

describe('CHANGELOG.md', () => {
	const changelog = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
	const headings = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({ version: m[1], date: m[2] }));

	test("has an Unreleased section first, then the package's version with its date", () => {
		expect(headings[0]).toEqual({ version: 'Unreleased', date: undefined });
		const current = headings.find((h) => h.version === pkg.version);
		expect(current).toBeDefined();
		expect(current!.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
		// Newest first: versions after Unreleased descend.
		const versions = headings.slice(1).map((h) => h.version.split('.').map(Number));
		const sorted = [...versions].sort((a, b) => b[0] - a[0] || b[1] - a[1] || b[2] - a[2]);
		expect(versions).toEqual(sorted);
	});

	test('links every heading', () => {
		for (const h of headings) expect(changelog).toMatch(new RegExp(`^\\[${h.version.replace(/\./g, '\\.')}\\]: https://`, 'm'));
	});
});
