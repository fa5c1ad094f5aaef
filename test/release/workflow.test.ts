/**
 * The release workflow (.github/workflows/release.yml) as far as it runs without publishing: its own steps' shell
 * scripts are run here (the tag check, the refusal of placeholders, the one pack whose checksum is published, the
 * release notes handed to GitHub's CLI), and its permissions are those of npm's trusted publishing.
 * Needs `npm run build` first (CI and the release workflow build before they test).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');
const PKG_TEXT = fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8');
const pkg = JSON.parse(PKG_TEXT);
const WORKFLOW = path.join(ROOT, '.github', 'workflows', 'release.yml');

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	env?: Record<string, string>;
}
interface Job {
	permissions?: Record<string, string>;
	env?: Record<string, string>;
	steps: Step[];
}

const workflow = (): { permissions?: Record<string, string>; jobs: Record<string, Job> } =>
	parse(fs.readFileSync(WORKFLOW, 'utf8'));

/** The one step of the workflow whose command matches, with its job and the job's id. */
function stepRunning(pattern: RegExp): { id: string; job: Job; step: Step } {
	const jobs = Object.entries(workflow().jobs);
	const found = jobs.flatMap(([id, job]) =>
		job.steps.filter((s) => pattern.test(s.run ?? '')).map((step) => ({ id, job, step })),
	);
	if (found.length !== 1)
		throw new Error(`expected one step running ${pattern}, found ${found.length}`);
	return found[0];
}

function runStep(pattern: RegExp, env: Record<string, string> = {}) {
	const { step } = stepRunning(pattern);
	return spawnSync('bash', ['-e', '-o', 'pipefail', '-c', step.run!], {
		cwd: ROOT,
		encoding: 'utf8',
		env: { ...process.env, ...env },
	});
}

let tmp: string;
beforeAll(() => {
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'appointments-release-'));
	if (!fs.existsSync(path.join(ROOT, 'dist')))
		throw new Error('dist/ is missing: run "npm run build" before this test');
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('release workflow (.github/workflows/release.yml)', () => {
	test('runs on version tags only', () => {
		expect(parse(fs.readFileSync(WORKFLOW, 'utf8')).on).toEqual({ push: { tags: ['v*'] } });
	});

	test('publishes by trusted publishing: only the publishing job may ask for an OIDC token, no secret or npm token anywhere', () => {
		const wf = workflow();
		expect(wf.permissions?.['id-token']).toBeUndefined();
		const { id, job, step } = stepRunning(/\bnpm publish\b/);
		expect(job.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
		expect(step.run).toMatch(/--provenance\b/);
		for (const [other, j] of Object.entries(wf.jobs))
			if (other !== id) expect(j.permissions?.['id-token']).toBeUndefined();
		const everything = JSON.stringify(wf);
		expect(everything).not.toMatch(/secrets\./);
		expect(everything).not.toMatch(/NODE_AUTH_TOKEN|NPM_TOKEN/);
	});

	test("its tag check accepts the package's tag and refuses any other", () => {
		expect(runStep(/is not v\$\{version\}/, { GITHUB_REF_NAME: `v${pkg.version}` }).status).toBe(0);
		const wrong = runStep(/is not v\$\{version\}/, { GITHUB_REF_NAME: 'v999.0.0' });
		expect(wrong.status).not.toBe(0);
		expect(wrong.stdout).toContain(`tag v999.0.0 is not v${pkg.version}`);
	});

	test('refuses to publish while package.json has the FILL-IN placeholders, naming each', () => {
		const r = runStep(/release-check\.mjs/);
		const placeholders = /\bFILL-IN\b/.test(PKG_TEXT);
		expect({ refused: r.status !== 0, out: r.stdout + r.stderr }).toEqual({
			refused: placeholders,
			out: expect.any(String),
		});
		if (placeholders)
			for (const field of ['author.name', 'author.email', 'repository.url', 'homepage'])
				expect(r.stderr).toContain(`package.json ${field}`);
	});

	describe('the checksum users pin', () => {
		let out: Record<string, string>;
		beforeAll(() => {
			const output = path.join(tmp, 'github-output');
			const r = runStep(/release-checksum\.mjs pack/, { GITHUB_OUTPUT: output });
			if (r.status !== 0) throw new Error(`the pack step failed: ${r.stderr}`);
			out = Object.fromEntries(
				fs
					.readFileSync(output, 'utf8')
					.trim()
					.split('\n')
					.map((l) => l.split(/=(.*)/s).slice(0, 2)),
			);
		});

		test("the pack step's integrity is the one npm records for the packed tarball, and that tarball is what is published", () => {
			const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
				cwd: ROOT,
				encoding: 'utf8',
			});
			const [npmRecord] = JSON.parse(r.stdout.slice(r.stdout.indexOf('[')));
			expect(out.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
			expect(out.integrity).toBe(npmRecord.integrity);
			expect(path.basename(out.tarball)).toBe(npmRecord.filename);
			expect(fs.existsSync(out.tarball)).toBe(true);
			expect(stepRunning(/\bnpm publish\b/).step.env?.TARBALL).toBe(
				'${{ steps.pack.outputs.tarball }}',
			);
		});

		test('the release notes it hands to GitHub hold the CHANGELOG entry, the checksum and a ready-to-paste N8N_COMMUNITY_PACKAGES', () => {
			const bin = path.join(tmp, 'bin');
			fs.mkdirSync(bin, { recursive: true });
			// Stands in for GitHub's CLI: keeps its arguments and the notes file it was given.
			const gh = `#!/bin/sh\nprintf '%s\\n' "$@" > "$GH_CALLS/args"\nwhile [ $# -gt 0 ]; do [ "$1" = --notes-file ] && cp "$2" "$GH_CALLS/notes.md"; shift; done\n`;
			fs.writeFileSync(path.join(bin, 'gh'), gh, { mode: 0o755 });
			const { job } = stepRunning(/release-checksum\.mjs notes/);
			expect(job.env?.INTEGRITY).toBe('${{ needs.publish.outputs.integrity }}');
			const r = runStep(/release-checksum\.mjs notes/, {
				PATH: `${bin}:${process.env.PATH}`,
				GH_CALLS: tmp,
				INTEGRITY: out.integrity,
				GITHUB_REF_NAME: `v${pkg.version}`,
				RUNNER_TEMP: fs.mkdtempSync(path.join(tmp, 'runner-')),
			});
			expect(r.stderr).toBe('');
			expect(r.status).toBe(0);
			expect(fs.readFileSync(path.join(tmp, 'args'), 'utf8').split('\n').slice(0, 3)).toEqual([
				'release',
				'create',
				`v${pkg.version}`,
			]);
			const notes = fs.readFileSync(path.join(tmp, 'notes.md'), 'utf8');
			expect(notes).toContain(out.integrity);
			const value = /^N8N_COMMUNITY_PACKAGES='(.*)'$/m.exec(notes)?.[1];
			expect(JSON.parse(value!)).toEqual([
				{ name: pkg.name, version: pkg.version, checksum: out.integrity },
			]);
			const changelog = fs.readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
			const entry = changelog.split(/^## /m).find((s) => s.startsWith(`[${pkg.version}]`))!;
			const firstLine = entry.split('\n').find((l) => l.startsWith('- '))!;
			expect(notes).toContain(firstLine);
		});
	});
});
