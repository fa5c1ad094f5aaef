/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code, never shipped: it reads and writes a file in the temp dir */
/**
 * The tests' self-signed certificates, each made once per machine and kept in the temp dir while it has more than a
 * day left: making an RSA key pair in every test file that serves https was several CPU-seconds of every `npm test`.
 *
 *   testCert(name, { commonName?, days })   { key, cert } of the certificate called `name` (scripts/cert.ts makes it)
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { selfSignedCert } from '../../scripts/cert';

export function testCert(
	name: string,
	options: { commonName?: string; days: number },
): { key: string; cert: string } {
	const file = path.join(
		os.tmpdir(),
		`n8n-appointments-test-cert-${name}-${options.days}d-${process.getuid?.() ?? 'user'}.json`,
	);
	try {
		const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { key: string; cert: string };
		const cert = new crypto.X509Certificate(kept.cert);
		if (
			cert.checkPrivateKey(crypto.createPrivateKey(kept.key)) &&
			Date.parse(cert.validTo) > Date.now() + 86400_000
		)
			return kept;
	} catch {
		// none yet, or unreadable: make one
	}
	const pems = selfSignedCert(options);
	// written whole under another name, then renamed: a test file running at the same time reads the old one or this one
	const partial = `${file}.${process.pid}.${crypto.randomUUID()}`;
	fs.writeFileSync(partial, JSON.stringify(pems), { mode: 0o600 });
	fs.renameSync(partial, file);
	return pems;
}
