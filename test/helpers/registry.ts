/**
 * A local npm registry for the Community Nodes installer tests: verdaccio (a real registry server) on loopback with
 * its storage in a temp folder, and a way to make n8n's installer use it.
 *
 * n8n's own setting for another registry, N8N_COMMUNITY_PACKAGES_REGISTRY, is an enterprise-licensed feature in
 * both 1.123 and 2.41 (CommunityPackagesService.getNpmRegistry() throws FeatureNotLicensedError for any other
 * registry without the license), and n8n passes `--registry=https://registry.npmjs.org` to every npm command, so
 * npm's own registry setting is overridden too. What an unlicensed n8n does honour is a proxy (HTTPS_PROXY, as in a
 * company network): `registryProxy` is one on loopback that serves registry.npmjs.org from verdaccio (a CONNECT
 * tunnel it terminates with its own certificate, which n8n and npm are told to trust, or a plain proxy request) and
 * refuses every other host, so nothing leaves the machine.
 *
 * verdaccio is installed like n8n, in a folder of its own (.dev/verdaccio-<version>, once): its audit plugin asks
 * for node-fetch@cjs, a dist-tag the registry here does not serve, and the npm `overrides` that fixes it are not
 * allowed in a community package's package.json (n8n's lint rule no-overrides-field).
 *
 *   ensureVerdaccio()  the install; startRegistry(dir)  verdaccio with a user: publish(tarballOrFolder), stop(),
 *       restart() on the same port
 *   startRegistryProxy(registryPort)  { url, caFile, requests, stop() }
 *   n8nRegistryEnv(proxy, dir)  the environment n8n needs; writeNodesNpmrc(userFolder, proxy, dir) the same as npm
 *       config in n8n's nodes folder, because n8n 1.x runs `npm outdated` (the list's update check) with an
 *       environment of PATH, NODE_PATH, APPDATA and NODE_ENV only.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import selfsigned from 'selfsigned';
import { stringify } from 'yaml';

import { node24Env, SetupError } from '../../scripts/install';
import { DEV_DIR } from '../../scripts/paths';
import { freePort, pollUntil, spawnGroup, type Managed } from '../../scripts/proc';

export const PUBLIC_REGISTRY_HOST = 'registry.npmjs.org';
export const VERDACCIO_VERSION = '6.10.4';
const VERDACCIO_DIR = path.join(DEV_DIR, `verdaccio-${VERDACCIO_VERSION}`);
const VERDACCIO = path.join(VERDACCIO_DIR, 'node_modules', 'verdaccio', 'bin', 'verdaccio');

/** Installs verdaccio into .dev/verdaccio-<version> unless it is there; returns its bin. */
export function ensureVerdaccio(log: (m: string) => void = console.log): string {
	const marker = path.join(VERDACCIO_DIR, '.installed');
	if (fs.existsSync(marker) && fs.existsSync(VERDACCIO)) return VERDACCIO;
	log(`Installing verdaccio ${VERDACCIO_VERSION} into ${VERDACCIO_DIR} (first run only)...`);
	fs.mkdirSync(VERDACCIO_DIR, { recursive: true });
	const manifest = {
		name: 'verdaccio-dev-install',
		private: true,
		dependencies: { verdaccio: VERDACCIO_VERSION },
		overrides: { 'verdaccio-audit': { 'node-fetch': '2.7.0' } },
	};
	fs.writeFileSync(
		path.join(VERDACCIO_DIR, 'package.json'),
		JSON.stringify(manifest, null, 2) + '\n',
	);
	fs.writeFileSync(
		path.join(VERDACCIO_DIR, '.npmrc'),
		'fund=false\naudit=false\nupdate-notifier=false\n',
	);
	const r = spawnSync(
		'npm',
		['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
		{
			cwd: VERDACCIO_DIR,
			env: node24Env(),
			encoding: 'utf8',
		},
	);
	if (r.status !== 0 || !fs.existsSync(VERDACCIO))
		throw new SetupError(
			`npm install verdaccio@${VERDACCIO_VERSION} failed: ${(r.stderr || r.stdout).slice(-2000)}`,
		);
	fs.writeFileSync(marker, VERDACCIO_VERSION + '\n');
	return VERDACCIO;
}

export interface Registry {
	url: string;
	port: number;
	publish(tarballOrFolder: string): void;
	stop(): Promise<void>;
	/** Starts it again on the same port with the same storage (after stop(): "the registry is down"). */
	restart(): Promise<void>;
}

export async function startRegistry(dir: string): Promise<Registry> {
	const bin = ensureVerdaccio();
	fs.mkdirSync(dir, { recursive: true });
	const port = await freePort();
	const url = `http://127.0.0.1:${port}`;
	const config = path.join(dir, 'config.yaml');
	fs.writeFileSync(
		config,
		stringify({
			storage: path.join(dir, 'storage'),
			auth: { htpasswd: { file: path.join(dir, 'htpasswd'), max_users: 10 } },
			uplinks: {}, // our package has no dependencies: nothing to fetch from elsewhere
			packages: { '**': { access: '$all', publish: '$authenticated' } },
			web: { enable: false },
			middlewares: { audit: { enabled: false } },
			log: { type: 'file', path: path.join(dir, 'verdaccio.log'), level: 'warn' },
		}),
	);
	let proc: Managed | undefined;
	const start = async () => {
		proc = spawnGroup(
			'verdaccio',
			process.execPath,
			[bin, '--config', config, '--listen', `127.0.0.1:${port}`],
			{
				cwd: dir,
				// Tarball URLs in the metadata as the public registry's, so npm fetches them through the same proxy.
				env: { ...process.env, VERDACCIO_PUBLIC_URL: `https://${PUBLIC_REGISTRY_HOST}/` },
				stdio: ['ignore', 'ignore', 'inherit'],
			},
		);
		await pollUntil(
			'verdaccio to answer /-/ping',
			async () => ((await fetch(`${url}/-/ping`).catch(() => undefined))?.ok ? true : undefined),
			{
				timeoutMs: 60_000,
				intervalMs: 200,
			},
		);
	};
	await start();
	// A user, as `npm adduser` makes one: its token publishes.
	const user = await fetch(`${url}/-/user/org.couchdb.user:ci`, {
		method: 'PUT',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ name: 'ci', password: 'ci-Passw0rd-local', type: 'user', roles: [] }),
	});
	const { token } = (await user.json()) as { token?: string };
	if (!token) throw new Error(`verdaccio made no user (${user.status})`);
	return {
		url,
		port,
		publish(tarballOrFolder) {
			const r = spawnSync(
				'npm',
				[
					'publish',
					tarballOrFolder,
					'--ignore-scripts',
					`--registry=${url}/`,
					`--//127.0.0.1:${port}/:_authToken=${token}`,
				],
				{ cwd: dir, encoding: 'utf8' },
			);
			if (r.status !== 0)
				throw new Error(
					`npm publish ${path.basename(tarballOrFolder)} failed: ${(r.stderr || r.stdout).slice(-2000)}`,
				);
		},
		async stop() {
			await proc?.stop();
			proc = undefined;
		},
		async restart() {
			if (!proc) await start();
		},
	};
}

/** The packed tarball unpacked into a folder with another version in its package.json (the same build). */
export function withVersion(tarball: string, dir: string, version: string): string {
	const out = path.join(dir, `package-${version}`);
	fs.rmSync(out, { recursive: true, force: true });
	fs.mkdirSync(out, { recursive: true });
	const r = spawnSync('tar', ['-xzf', tarball, '-C', out, '--strip-components=1']);
	if (r.status !== 0) throw new Error(`tar -xzf ${tarball} failed`);
	const pkgFile = path.join(out, 'package.json');
	const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
	fs.writeFileSync(pkgFile, JSON.stringify({ ...pkg, version }, null, 2) + '\n');
	return out;
}

export interface RegistryProxy {
	url: string;
	/** The certificate it shows for registry.npmjs.org (n8n: NODE_EXTRA_CA_CERTS, npm: cafile). */
	caFile: string;
	/** "METHOD path status" of every request it served for registry.npmjs.org, and "refused host" of the rest. */
	requests: string[];
	stop(): Promise<void>;
}

export async function startRegistryProxy(
	registryPort: number,
	dir: string,
): Promise<RegistryProxy> {
	const pems = selfsigned.generate([{ name: 'commonName', value: PUBLIC_REGISTRY_HOST }], {
		days: 2,
		keySize: 2048,
		algorithm: 'sha256',
		extensions: [
			{ name: 'basicConstraints', cA: true },
			{ name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true },
			{ name: 'extKeyUsage', serverAuth: true },
			{ name: 'subjectAltName', altNames: [{ type: 2, value: PUBLIC_REGISTRY_HOST }] },
		],
	});
	const caFile = path.join(dir, 'registry-proxy-ca.pem');
	fs.writeFileSync(caFile, pems.cert);
	const requests: string[] = [];

	const forward = (
		host: string,
		pathAndQuery: string,
		req: http.IncomingMessage,
		res: http.ServerResponse,
	) => {
		if (host !== PUBLIC_REGISTRY_HOST) {
			requests.push(`refused ${host}`);
			res.writeHead(403).end('only the registry is reachable here');
			return;
		}
		const up = http.request(
			{
				host: '127.0.0.1',
				port: registryPort,
				method: req.method,
				path: pathAndQuery,
				headers: { ...req.headers, host: `127.0.0.1:${registryPort}` },
			},
			(upRes) => {
				requests.push(`${req.method} ${pathAndQuery} ${upRes.statusCode}`);
				res.writeHead(upRes.statusCode ?? 502, upRes.headers);
				upRes.pipe(res);
			},
		);
		up.on('error', () => {
			requests.push(`${req.method} ${pathAndQuery} 502`);
			if (!res.headersSent)
				res.writeHead(502, { 'content-type': 'text/plain' }).end('registry unreachable');
		});
		req.pipe(up);
	};

	// Requests that came through a CONNECT tunnel (npm, n8n 2.x's proxy agent): origin-form, host from the tunnel.
	const inside = http.createServer((req, res) =>
		forward(PUBLIC_REGISTRY_HOST, req.url ?? '/', req, res),
	);
	// Plain proxy requests (n8n 1.x's axios sends https URLs in absolute form to an http proxy).
	const server = http.createServer((req, res) => {
		let target: URL;
		try {
			target = new URL(req.url ?? '');
		} catch {
			res.writeHead(400).end();
			return;
		}
		forward(target.hostname, target.pathname + target.search, req, res);
	});
	server.on('connect', (req, socket, head) => {
		const host = (req.url ?? '').split(':')[0];
		if (host !== PUBLIC_REGISTRY_HOST) {
			requests.push(`refused ${host}`);
			socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
			return;
		}
		socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
		if (head.length) socket.unshift(head);
		const secure = new tls.TLSSocket(socket, {
			isServer: true,
			key: pems.private,
			cert: pems.cert,
		});
		secure.on('error', () => socket.destroy());
		inside.emit('connection', secure);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		caFile,
		requests,
		async stop() {
			server.closeAllConnections();
			inside.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}

/** What n8n (and the npm it runs) needs to reach registry.npmjs.org through the proxy, with a cache of its own. */
export function n8nRegistryEnv(proxy: RegistryProxy, dir: string): Record<string, string> {
	return {
		HTTPS_PROXY: proxy.url,
		https_proxy: proxy.url,
		NO_PROXY: 'localhost,127.0.0.1',
		no_proxy: 'localhost,127.0.0.1',
		NODE_EXTRA_CA_CERTS: proxy.caFile,
		npm_config_cafile: proxy.caFile,
		// Never the user's cache: it would keep our package as if it came from the public registry.
		npm_config_cache: path.join(dir, 'npm-cache'),
		npm_config_update_notifier: 'false',
		// npm's retries (10 s, then up to 60 s) made an update from a registry that is down take 75 s; on loopback a
		// retry needs no back-off.
		npm_config_fetch_retry_mintimeout: '500',
		npm_config_fetch_retry_maxtimeout: '1000',
	};
}

/** npm config in n8n's nodes folder (where n8n runs npm): the proxy, its certificate and a cache of its own. */
export function writeNodesNpmrc(userFolder: string, proxy: RegistryProxy, dir: string): void {
	const nodes = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodes, { recursive: true });
	const lines = [
		`https-proxy=${proxy.url}`,
		'noproxy=localhost,127.0.0.1',
		`cafile=${proxy.caFile}`,
		`cache=${path.join(dir, 'npm-cache')}`,
		'update-notifier=false',
		'fund=false',
		'audit=false',
		'fetch-retry-mintimeout=500',
		'fetch-retry-maxtimeout=1000',
	];
	fs.writeFileSync(path.join(nodes, '.npmrc'), lines.join('\n') + '\n');
}
