/**
 * What can be checked of a release without publishing (RELEASING.md): `npm pack` of the built package holds exactly
 * what n8n loads, and the changelog has the package's version. The release workflow's steps: workflow.test.ts.
 * Needs `npm run build` first (CI and the release workflow build before they test).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

describe('the packed package (npm pack --dry-run)', () => {
	let files: string[];
	let packed: { name: string; version: string };

	beforeAll(() => {
		if (!fs.existsSync(path.join(ROOT, 'dist')))
			throw new Error('dist/ is missing: run "npm run build" before this test');
		const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
			cwd: ROOT,
			encoding: 'utf8',
		});
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
		expect(
			files.filter(
				(f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'LICENSE'].includes(f),
			),
		).toEqual([]);
		expect(files).toEqual(expect.arrayContaining([...pkg.n8n.nodes, ...pkg.n8n.credentials]));
		// No sources, tests or the sandbox.
		expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
		expect(files.filter((f) => /(^|\/)(test|sandbox|scripts)\//.test(f))).toEqual([]);
	});

	test('has every icon and codex of nodes/ and credentials/ beside the files n8n loads', () => {
		const assets: string[] = [];
		const walk = (dir: string) => {
			for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
				const rel = `${dir}/${e.name}`;
				if (e.isDirectory()) walk(rel);
				else if (!rel.endsWith('.ts')) assets.push(`dist/${rel}`);
			}
		};
		walk('nodes');
		walk('credentials');
		expect(assets.filter((f) => f.endsWith('.svg')).length).toBeGreaterThanOrEqual(2);
		expect(assets.filter((f) => f.endsWith('.node.json'))).toHaveLength(pkg.n8n.nodes.length);
		expect(files).toEqual(expect.arrayContaining(assets));
	});
});

describe('CHANGELOG.md', () => {
	const changelog = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
	const headings = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map(
		(m) => ({ version: m[1], date: m[2] }),
	);

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
		for (const h of headings)
			expect(changelog).toMatch(
				new RegExp(`^\\[${h.version.replace(/\./g, '\\.')}\\]: https://`, 'm'),
			);
	});
});
