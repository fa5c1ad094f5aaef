/**
 * No stream of requests brings the sandbox down: 60,000 unauthenticated requests with 14 kB queries (they once took
 * it to 4 GB and a heap exhaustion) leave it up, answering, under 600 MB of resident memory. The sandbox runs in a
 * process of its own (the command line) so that its memory is measured alone.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Pool } from 'undici';

const ROOT = path.resolve(__dirname, '../..');

const REQUESTS = Number(process.env.FLOOD_REQUESTS ?? 60_000);

const rssMb = (pid: number) =>
	Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

it(`${REQUESTS} unauthenticated requests with 14 kB queries: still answering, under 600 MB RSS`, async () => {
	const child = spawn(
		process.execPath,
		[
			'--import',
			'tsx',
			'sandbox/cli.ts',
			'--port',
			'0',
			'--token',
			'flood-t',
			'--admin-token',
			'flood-a',
			'--seed',
			'50',
			'--smtp-port',
			'off',
		],
		{ cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
	);
	try {
		const url = await new Promise<string>((resolve, reject) => {
			let out = '';
			child.stdout.setEncoding('utf8').on('data', (c: string) => {
				out += c;
				const m = /SANDBOX_URL=(\S+)/.exec(out);
				if (m) resolve(m[1]);
			});
			child.on('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
		});
		const pool = new Pool(url, { connections: 8, pipelining: 1 });
		const query = `name=${'q'.repeat(14 * 1024)}`;
		let sent = 0;
		let maxRss = 0;
		const statuses = new Map<number, number>();
		const worker = async () => {
			while (sent < REQUESTS) {
				sent++;
				const r = await pool.request({
					method: 'GET',
					path: `/api/v3/appointments/?${query}&n=${sent}`,
				});
				await r.body.dump();
				statuses.set(r.statusCode, (statuses.get(r.statusCode) ?? 0) + 1);
				if (sent % 5000 === 0) maxRss = Math.max(maxRss, rssMb(child.pid!));
			}
		};
		await Promise.all(Array.from({ length: 8 }, worker));
		maxRss = Math.max(maxRss, rssMb(child.pid!));
		process.stdout.write(
			`flood: ${REQUESTS} requests, statuses ${JSON.stringify([...statuses])}, max RSS ${maxRss.toFixed(0)} MB\n`,
		);
		expect([...statuses]).toEqual([[401, REQUESTS]]);
		expect(maxRss).toBeLessThan(600);
		// still answering, and the log holds the refused requests without their queries
		const log = await pool.request({
			method: 'GET',
			path: '/__sandbox/requests/',
			headers: { authorization: 'Bearer flood-a' },
		});
		expect(log.statusCode).toBe(200);
		const { requests } = (await log.body.json()) as {
			requests: Array<{ query: object; query_omitted: number; authorized: boolean }>;
		};
		expect(requests.length).toBeGreaterThan(0);
		expect(requests[requests.length - 1]).toMatchObject({
			query: {},
			query_omitted: query.length + `&n=${REQUESTS}`.length,
			authorized: false,
		});
		const list = await pool.request({
			method: 'GET',
			path: '/api/v3/appointments/?page_size=1',
			headers: { authorization: 'Bearer flood-t' },
		});
		expect(list.statusCode).toBe(200);
		await list.body.dump();
		await pool.close();
	} finally {
		child.kill('SIGKILL');
	}
}, 300_000);
