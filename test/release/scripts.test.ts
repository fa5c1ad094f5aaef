/**
 * The release workflow's two scripts on packages of their own (temp folders), for the cases the repository is not
 * in today: scripts/release-check.mjs refuses placeholders, another repository, stale links and an npm too old for
 * trusted publishing, and accepts a package that is ready; scripts/release-checksum.mjs writes the pin block into
 * the right CHANGELOG entry, once, and refuses what is not a version or a sha512 integrity.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const CHECK = path.join(ROOT, 'scripts', 'release-check.mjs');
const CHECKSUM = path.join(ROOT, 'scripts', 'release-checksum.mjs');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const INTEGRITY = `sha512-${'A'.repeat(86)}==`;
const OTHER_INTEGRITY = `sha512-${'B'.repeat(86)}==`;

let tmp: string;
beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'appointments-release-scripts-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const READY = {
	author: { name: 'Ana Pérez', email: 'ana@clinica-norte.cl' },
	repository: {
		type: 'git',
		url: 'git+https://github.com/clinica-norte/n8n-nodes-appointments.git',
	},
	homepage: 'https://github.com/clinica-norte/n8n-nodes-appointments#readme',
};
const REPO = 'clinica-norte/n8n-nodes-appointments';

let n = 0;
/** A package folder: package.json (ours with `fields`), a CHANGELOG and a compiled node linking to `linkRepo`. */
function packageFolder(fields: Record<string, unknown>, linkRepo = REPO): string {
	const dir = path.join(tmp, `pkg-${n++}`);
	fs.mkdirSync(path.join(dir, 'dist', 'nodes'), { recursive: true });
	fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...pkg, ...fields }, null, 2));
	fs.writeFileSync(
		path.join(dir, 'CHANGELOG.md'),
		`# Changelog\n\n## [Unreleased]\n\n[Unreleased]: https://github.com/${linkRepo}/compare/v0.1.0...HEAD\n`,
	);
	const codex = {
		resources: { primaryDocumentation: [{ url: `https://github.com/${linkRepo}#readme` }] },
	};
	fs.writeFileSync(
		path.join(dir, 'dist', 'nodes', 'Appointments.node.json'),
		JSON.stringify(codex),
	);
	return dir;
}

/** A folder with an `npm` that only answers `npm --version` with `version`. */
function npmAt(version: string): string {
	const bin = path.join(tmp, `npm-${version}`);
	fs.mkdirSync(bin, { recursive: true });
	fs.writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho ${version}\n`, { mode: 0o755 });
	return bin;
}

function check(dir: string, env: Record<string, string | undefined> = {}) {
	const r = spawnSync(process.execPath, [CHECK, dir], {
		encoding: 'utf8',
		env: { ...process.env, GITHUB_REPOSITORY: REPO, ...env },
	});
	return { status: r.status, out: r.stdout + r.stderr };
}

describe('scripts/release-check.mjs (the "Ready to publish" step)', () => {
	test('accepts a package whose author, repository, homepage and links are real', () => {
		const r = check(packageFolder(READY));
		expect(r).toEqual({
			status: 0,
			out: expect.stringContaining(`Ready to publish ${pkg.name}@${pkg.version} from ${REPO}`),
		});
	});

	test('refuses the FILL-IN placeholders and a dummy email, naming each field', () => {
		const r = check(
			packageFolder({
				author: { name: "FILL-IN the publisher's name", email: 'FILL-IN@example.invalid' },
				repository: {
					type: 'git',
					url: 'git+https://github.com/FILL-IN-OWNER/n8n-nodes-appointments.git',
				},
				homepage: 'https://github.com/FILL-IN-OWNER/n8n-nodes-appointments#readme',
			}),
		);
		expect(r.status).toBe(1);
		for (const field of ['author.name', 'author.email', 'repository.url', 'homepage'])
			expect(r.out).toContain(`package.json ${field} is a placeholder`);
		expect(
			check(
				packageFolder({
					...READY,
					author: { name: 'Ana Pérez', email: 'maintainers@example.com' },
				}),
			).out,
		).toContain('author.email is a placeholder');
	});

	test('refuses a homepage on another GitHub repository than repository.url', () => {
		const r = check(
			packageFolder({
				...READY,
				homepage: 'https://github.com/n8n-nodes-appointments/n8n-nodes-appointments#readme',
			}),
		);
		expect(r).toEqual({
			status: 1,
			out: expect.stringContaining(
				`package.json homepage names github.com/n8n-nodes-appointments/n8n-nodes-appointments, not the repository (${REPO})`,
			),
		});
		expect(
			check(packageFolder({ ...READY, homepage: 'https://clinica-norte.cl/n8n' })).status,
		).toBe(0);
	});

	test('refuses a repository.url that is not the repository the workflow runs in (npm would refuse the provenance)', () => {
		const r = check(packageFolder(READY), {
			GITHUB_REPOSITORY: 'someone-else/n8n-nodes-appointments',
		});
		expect(r.status).toBe(1);
		expect(r.out).toContain(
			`repository.url names ${REPO}, but this workflow runs in someone-else/n8n-nodes-appointments`,
		);
	});

	test('refuses links of the published files and the CHANGELOG to another copy of the repository', () => {
		const r = check(packageFolder(READY, 'n8n-nodes-appointments/n8n-nodes-appointments'));
		expect(r.status).toBe(1);
		for (const file of ['CHANGELOG.md', path.join('dist', 'nodes', 'Appointments.node.json')]) {
			expect(r.out).toContain(
				`${file} links to github.com/n8n-nodes-appointments/n8n-nodes-appointments, not to the repository of package.json (${REPO})`,
			);
		}
	});

	test('refuses an npm older than 11.5.1, the first with trusted publishing', () => {
		const dir = packageFolder(READY);
		const withNpm = (v: string) => check(dir, { PATH: `${npmAt(v)}:${process.env.PATH}` });
		expect(withNpm('11.4.2')).toEqual({
			status: 1,
			out: expect.stringContaining(
				'npm 11.4.2 cannot publish with trusted publishing (OIDC): it needs npm >= 11.5.1',
			),
		});
		expect(withNpm('10.9.3').status).toBe(1);
		expect(withNpm('11.5.1').status).toBe(0);
		expect(withNpm('12.0.0').status).toBe(0);
	});
});

describe('scripts/release-checksum.mjs changelog (the "Checksum into the CHANGELOG entry" step)', () => {
	const changelog = [
		'# Changelog',
		'',
		'## [Unreleased]',
		'',
		'## [0.2.0] - 2026-12-01',
		'',
		'### Added',
		'- Something new.',
		'',
		'## [0.1.0] - 2026-11-25',
		'',
		'### Added',
		'- The first nodes.',
		'',
		'[Unreleased]: https://github.com/o/r/compare/v0.2.0...HEAD',
		'',
	].join('\n');
	const run = (file: string, ...args: string[]) =>
		spawnSync(process.execPath, [CHECKSUM, 'changelog', ...args, file], { encoding: 'utf8' });

	test("writes the checksum and the N8N_COMMUNITY_PACKAGES value into that version's entry only; again replaces it", () => {
		const file = path.join(tmp, 'CHANGELOG-a.md');
		fs.writeFileSync(file, changelog);
		expect(run(file, '0.2.0', OTHER_INTEGRITY).status).toBe(0);
		expect(run(file, '0.2.0', INTEGRITY).status).toBe(0);
		const text = fs.readFileSync(file, 'utf8');
		const [, entry, rest] = text.split(/^## \[0\.2\.0\].*$|^## \[0\.1\.0\]/m);
		expect(entry).toContain('- Something new.');
		expect(entry.match(/### Pin this version/g)).toHaveLength(1);
		expect(entry).not.toContain(OTHER_INTEGRITY);
		const value = /^N8N_COMMUNITY_PACKAGES='(.*)'$/m.exec(entry)![1];
		expect(JSON.parse(value)).toEqual([{ name: pkg.name, version: '0.2.0', checksum: INTEGRITY }]);
		expect(rest).not.toContain('sha512-');
		expect(text.replace(/\n### Pin this version[\s\S]*?```\n\n/, '\n')).toBe(changelog);
	});

	test('refuses a version without an entry, and what is not a sha512 integrity, leaving the file as it was', () => {
		const file = path.join(tmp, 'CHANGELOG-b.md');
		fs.writeFileSync(file, changelog);
		const missing = run(file, '0.3.0', INTEGRITY);
		expect({ status: missing.status, err: missing.stderr.trim() }).toEqual({
			status: 1,
			err: 'CHANGELOG-b.md has no entry "## [0.3.0]"',
		});
		const sha1 = run(file, '0.2.0', 'sha1-abc');
		expect({ status: sha1.status, err: sha1.stderr.trim() }).toEqual({
			status: 1,
			err: 'not a sha512 integrity: "sha1-abc"',
		});
		expect(fs.readFileSync(file, 'utf8')).toBe(changelog);
	});
});
