#!/usr/bin/env node
// The checksum a user pins in N8N_COMMUNITY_PACKAGES (n8n >= 2.21, and the way n8n 3.0 installs an unverified
// package): the sha512 integrity of the tarball npm publishes, which is what the registry records as
// `dist.integrity` and what n8n compares the pinned checksum with. The release workflow packs once, publishes that
// very tarball, and puts its integrity into the release notes and the CHANGELOG entry.
//
//   node scripts/release-checksum.mjs pack <dir> [folder]            packs the built package (or [folder]) into
//       <dir>; prints tarball=<path> and integrity=<sha512-...> (also appended to $GITHUB_OUTPUT when set)
//   node scripts/release-checksum.mjs notes <version> <integrity>    prints the release notes: the CHANGELOG entry
//       of <version> and how to pin it
//   node scripts/release-checksum.mjs changelog <version> <integrity> [file]   writes the pin block into the entry
//       of <version> in CHANGELOG.md (or [file]); running it again replaces the block
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NAME = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).name;
const PIN_HEADING = '### Pin this version';

function fail(message) {
	console.error(message);
	process.exit(1);
}

/** sha512 of the file as npm writes it: "sha512-" and the base64 digest. */
function integrityOf(file) {
	return `sha512-${crypto.createHash('sha512').update(fs.readFileSync(file)).digest('base64')}`;
}

function pack(dir, folder) {
	fs.mkdirSync(dir, { recursive: true });
	const what = folder ? [path.resolve(folder)] : [];
	const out = execFileSync(
		'npm',
		['pack', ...what, '--json', '--ignore-scripts', '--pack-destination', dir],
		{ cwd: ROOT, encoding: 'utf8' },
	);
	const [info] = JSON.parse(out.slice(out.indexOf('[')));
	const tarball = path.resolve(dir, info.filename);
	const integrity = integrityOf(tarball);
	// npm computes it while packing; the file on disk must say the same, or what we publish is not what we pin.
	if (integrity !== info.integrity)
		fail(`npm pack reported ${info.integrity}, but ${tarball} has ${integrity}`);
	const lines = `tarball=${tarball}\nintegrity=${integrity}\n`;
	process.stdout.write(lines);
	if (process.env.GITHUB_OUTPUT) fs.appendFileSync(process.env.GITHUB_OUTPUT, lines);
}

/** The pin block: the checksum, the N8N_COMMUNITY_PACKAGES value and the docker-compose lines. */
function pinBlock(version, integrity) {
	if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version ?? ''))
		fail(`not a version: ${JSON.stringify(version)}`);
	if (!/^sha512-[A-Za-z0-9+/]{86}==$/.test(integrity ?? ''))
		fail(`not a sha512 integrity: ${JSON.stringify(integrity)}`);
	const value = JSON.stringify([{ name: NAME, version, checksum: integrity }]);
	return [
		PIN_HEADING,
		'',
		`The published tarball's sha512 checksum (npm's \`dist.integrity\`): \`${integrity}\``,
		'',
		'To install exactly this version on start (n8n 2.21 and later, Docker, n8n 3.0; README, "In Docker or with n8n 3.0"):',
		'',
		'```sh',
		'N8N_COMMUNITY_PACKAGES_MANAGED_BY_ENV=true',
		`N8N_COMMUNITY_PACKAGES='${value}'`,
		'```',
		'',
	].join('\n');
}

/** [start, end) line indexes of the entry "## [version]" (up to the next "## " heading or the link list). */
function entryRange(lines, version) {
	const start = lines.findIndex((l) => l.startsWith(`## [${version}]`));
	if (start < 0) return undefined;
	let end = lines.findIndex(
		(l, i) => i > start && (l.startsWith('## ') || /^\[[^\]]+\]: /.test(l)),
	);
	if (end < 0) end = lines.length;
	return [start, end];
}

/** The entry's lines without an earlier pin block. */
function entryBody(lines, [start, end]) {
	const body = lines.slice(start + 1, end);
	const pin = body.indexOf(PIN_HEADING);
	if (pin < 0) return body;
	const next = body.findIndex((l, i) => i > pin && l.startsWith('### '));
	return [...body.slice(0, pin), ...(next < 0 ? [] : body.slice(next))];
}

function readEntry(file, version) {
	const lines = fs.readFileSync(file, 'utf8').split('\n');
	const range = entryRange(lines, version);
	if (!range) fail(`${path.basename(file)} has no entry "## [${version}]"`);
	return { lines, range, body: entryBody(lines, range) };
}

function notes(version, integrity) {
	const block = pinBlock(version, integrity);
	const { body } = readEntry(path.join(ROOT, 'CHANGELOG.md'), version);
	process.stdout.write(`${body.join('\n').trim()}\n\n${block}`);
}

function changelog(version, integrity, file = path.join(ROOT, 'CHANGELOG.md')) {
	const block = pinBlock(version, integrity);
	const { lines, range, body } = readEntry(file, version);
	const trimmed = body.join('\n').trim();
	const entry = [lines[range[0]], '', ...(trimmed ? [trimmed, ''] : []), block];
	fs.writeFileSync(
		file,
		[...lines.slice(0, range[0]), ...entry, ...lines.slice(range[1])].join('\n'),
	);
	console.log(`${path.basename(file)}: the entry of ${version} has the checksum ${integrity}`);
}

const [command, ...args] = process.argv.slice(2);
const commands = { pack, notes, changelog };
if (!commands[command])
	fail(
		'usage: release-checksum.mjs pack <dir> [folder] | notes <version> <integrity> | changelog <version> <integrity> [file]',
	);
commands[command](...args);
