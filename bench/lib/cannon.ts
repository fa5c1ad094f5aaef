/**
 * Runs autocannon in a child process (its own core on this 2-core machine, so the load generator does not
 * compete with the server under test in one event loop) and returns its JSON summary.
 *
 *   cannon({ url, connections, durationSec, method?, headers?, body?, envelopes?, ca? })
 *
 * `envelopes: true` sends a distinct notification envelope per request (fresh appointment_key and timestamp),
 * so deduplicating receivers see no duplicates.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './common';

export interface CannonOptions {
	url: string;
	connections: number;
	durationSec: number;
	method?: string;
	headers?: Record<string, string>;
	body?: string;
	envelopes?: boolean;
	/** PEM of a certificate to trust (https on localhost with a self-signed certificate). */
	ca?: string;
}

export interface CannonResult {
	requestsPerSec: number;
	requestsTotal: number;
	non2xx: number;
	errors: number;
	timeouts: number;
	latencyMedianMs: number;
	latencyP99Ms: number;
	statusCodes: Record<string, number>;
}

const WORKER = path.join(ROOT, 'bench', 'lib', 'cannon-worker.cjs');

export async function cannon(options: CannonOptions): Promise<CannonResult> {
	return await new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [WORKER], {
			cwd: ROOT,
			env: { ...process.env, NODE_OPTIONS: '' },
			stdio: ['pipe', 'pipe', 'pipe'],
		});
		let out = '';
		let err = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (err += d));
		child.once('error', reject);
		child.once('close', (code) => {
			if (code !== 0)
				return reject(new Error(`autocannon failed (exit ${code}): ${err.slice(-2000)}`));
			try {
				resolve(JSON.parse(out.trim().split('\n').pop()!));
			} catch (e) {
				reject(new Error(`autocannon printed no result: ${out.slice(-500)} ${err.slice(-500)}`));
			}
		});
		child.stdin.end(JSON.stringify(options));
	});
}
