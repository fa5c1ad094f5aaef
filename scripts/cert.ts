/** A self-signed certificate for https on localhost (SAN localhost + 127.0.0.1), made once under .dev/cert/. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import selfsigned from 'selfsigned';
import { CERT_DIR } from './paths';

export interface DevCert {
	keyPath: string;
	certPath: string;
	key: string;
	cert: string;
}

function stillValid(certPem: string): boolean {
	try {
		const x = new crypto.X509Certificate(certPem);
		const sans = x.subjectAltName ?? '';
		return (
			new Date(x.validTo).getTime() > Date.now() + 7 * 86400_000 &&
			sans.includes('DNS:localhost') &&
			sans.includes('IP Address:127.0.0.1')
		);
	} catch {
		return false;
	}
}

/**
 * A new self-signed certificate, in memory (nothing written): its own CA, for server auth, SAN localhost and
 * 127.0.0.1. The one generator for the dev stack (ensureCert), the test receivers and the benchmark.
 */
export function selfSignedCert({
	commonName = 'localhost',
	days = 365,
}: { commonName?: string; days?: number } = {}): {
	key: string;
	cert: string;
} {
	const pems = selfsigned.generate([{ name: 'commonName', value: commonName }], {
		days,
		keySize: 2048,
		algorithm: 'sha256',
		extensions: [
			{ name: 'basicConstraints', cA: true },
			{ name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true },
			{ name: 'extKeyUsage', serverAuth: true },
			{
				name: 'subjectAltName',
				altNames: [
					{ type: 2, value: 'localhost' },
					{ type: 7, ip: '127.0.0.1' },
				],
			},
		],
	});
	return { key: pems.private, cert: pems.cert };
}

export function ensureCert(dir: string = CERT_DIR): DevCert {
	const keyPath = path.join(dir, 'localhost-key.pem');
	const certPath = path.join(dir, 'localhost-cert.pem');
	if (fs.existsSync(keyPath) && fs.existsSync(certPath)) {
		const cert = fs.readFileSync(certPath, 'utf8');
		if (stillValid(cert)) return { keyPath, certPath, key: fs.readFileSync(keyPath, 'utf8'), cert };
	}
	const pems = selfSignedCert({ days: 365 });
	fs.mkdirSync(dir, { recursive: true });
	fs.writeFileSync(keyPath, pems.key, { mode: 0o600 });
	fs.writeFileSync(certPath, pems.cert);
	return { keyPath, certPath, key: pems.key, cert: pems.cert };
}
