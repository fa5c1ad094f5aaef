/** The command line: `tsx sandbox/cli.ts` prints SANDBOX_URL= and the tokens, serves, and stops cleanly on signals. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';

import { receiver, selfSigned } from './helpers';

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');

interface Cli {
	child: ChildProcessWithoutNullStreams;
	lines: string[];
	stderr: () => string;
	exit: Promise<number | null>;
}

function run(args: string[]): Cli {
	const child = spawn(process.execPath, [TSX, 'sandbox/cli.ts', ...args], {
		cwd: ROOT,
		stdio: 'pipe',
	});
	const lines: string[] = [];
	let out = '';
	let err = '';
	child.stdout.setEncoding('utf8').on('data', (c: string) => {
		out += c;
		const parts = out.split('\n');
		out = parts.pop()!;
		lines.push(...parts);
	});
	child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
	const exit = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
	return { child, lines, stderr: () => err, exit };
}

async function waitForUrl(cli: Cli): Promise<string> {
	const deadline = Date.now() + 30000;
	for (;;) {
		const line = cli.lines.find((l) => l.startsWith('SANDBOX_URL='));
		if (line) return line.slice('SANDBOX_URL='.length);
		if (cli.child.exitCode !== null) throw new Error(`cli exited: ${cli.stderr()}`);
		if (Date.now() > deadline)
			throw new Error(`no SANDBOX_URL line: ${cli.lines.join('\n')} ${cli.stderr()}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

it('prints the URL, tokens and mail sink, serves with the flags given, and exits 0 on SIGTERM', async () => {
	const cli = run([
		'--port',
		'0',
		'--smtp-port',
		'0',
		'--token',
		'cli-token',
		'--token',
		'cli-token-2',
		'--restricted-token',
		'cli-limited',
		'--admin-token',
		'cli-admin',
		'--seed',
		'25',
		'--pagination',
		'none',
		'--mutation-response',
		'empty',
		'--retry-schedule',
		'10,20',
		'--repeat-cancel',
		'not-found',
		'--cancel-removes',
		'--read-lag-ms',
		'1500',
		'--link-query-order',
		'sorted',
	]);
	try {
		const url = await waitForUrl(cli);
		expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		for (const deadline = Date.now() + 5000; cli.lines.length < 8 && Date.now() < deadline; )
			await new Promise((r) => setTimeout(r, 20));
		const smtpPort = Number(
			cli.lines.find((l) => l.startsWith('SANDBOX_SMTP_PORT='))?.split('=')[1],
		);
		expect(smtpPort).toBeGreaterThan(0);
		expect(cli.lines).toEqual([
			`SANDBOX_URL=${url}`,
			'SANDBOX_TOKEN=cli-token',
			'SANDBOX_TOKEN=cli-token-2',
			'SANDBOX_RESTRICTED_TOKEN=cli-limited',
			'SANDBOX_ADMIN_TOKEN=cli-admin',
			`SANDBOX_DASHBOARD=${url}/dashboard/`,
			`SANDBOX_SMTP_PORT=${smtpPort}`,
			`SANDBOX_MAILBOX=${url}/dashboard/mailbox/`,
		]);
		// the printed port takes mail
		await nodemailer
			.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false })
			.sendMail({
				from: 'bookings@example.com',
				to: 'ana@example.com',
				subject: 'Through the CLI',
				text: 'hello',
			});
		const box = (await (
			await fetch(`${url}/__sandbox/mailbox/`, { headers: { authorization: 'Bearer cli-admin' } })
		).json()) as any;
		expect(box.results.map((m: any) => [m.from, m.to, m.subject])).toEqual([
			['bookings@example.com', ['ana@example.com'], 'Through the CLI'],
		]);
		const dash = await fetch(`${url}/dashboard/`, { redirect: 'manual' });
		expect([dash.status, dash.headers.get('location')]).toEqual([
			303,
			'/dashboard/login?next=%2Fdashboard%2F',
		]);
		const list = (await (
			await fetch(`${url}/api/v3/appointments/`, {
				headers: { authorization: 'Bearer cli-token-2' },
			})
		).json()) as any;
		expect(Object.keys(list)).toEqual(['results']);
		expect(list.results).toHaveLength(25);
		const patch = await fetch(`${url}/api/v3/appointments/${list.results[0].appointment_key}/`, {
			method: 'PATCH',
			headers: { authorization: 'Bearer cli-token', 'content-type': 'application/json' },
			body: JSON.stringify({ status: 'ATTENDED' }),
		});
		expect(patch.status).toBe(204);
		const cfg = (await (
			await fetch(`${url}/__sandbox/config/`, { headers: { authorization: 'Bearer cli-admin' } })
		).json()) as any;
		expect(cfg).toMatchObject({
			retrySchedule: [10, 20],
			pagination: 'none',
			mutationResponse: 'empty',
			repeatCancel: 'not-found',
			cancelRemoves: true,
			readLagMs: 1500,
			linkQueryOrder: 'sorted',
			tokens: 2,
			restrictedTokens: 1,
		});
	} finally {
		cli.child.kill('SIGTERM');
	}
	expect(await cli.exit).toBe(0);
	expect(cli.stderr()).toMatch(/SIGTERM received[\s\S]*stopped/);
});

it('serves https with --tls-cert/--tls-key, trusts --ca for callbacks, and finishes an in-flight delivery on SIGINT', async () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sbx-cli-'));
	const pems = selfSigned();
	fs.writeFileSync(path.join(dir, 'cert.pem'), pems.cert);
	fs.writeFileSync(path.join(dir, 'key.pem'), pems.key);
	let release!: () => void;
	const held = new Promise<void>((r) => (release = r));
	let answered = 0;
	const recv = await receiver(async () => {
		await held;
		answered++;
		return 200;
	});
	const cli = run([
		'--port',
		'0',
		'--host',
		'localhost',
		'--tls-cert',
		path.join(dir, 'cert.pem'),
		'--tls-key',
		path.join(dir, 'key.pem'),
		'--ca',
		path.join(dir, 'cert.pem'),
		'--token',
		't',
		'--admin-token',
		'a',
		'--seed',
		'5',
		'--smtp-port',
		'off',
	]);
	try {
		const url = await waitForUrl(cli);
		expect(url).toMatch(/^https:\/\/localhost:\d+$/);
		const { Agent, request } = await import('undici');
		const agent = new Agent({ connect: { ca: pems.cert } });
		const call = async (method: string, p: string, token: string, body?: unknown) => {
			const r = await request(`${url}${p}`, {
				method: method as 'GET',
				dispatcher: agent,
				headers: {
					authorization: `Bearer ${token}`,
					...(body ? { 'content-type': 'application/json' } : {}),
				},
				body: body ? JSON.stringify(body) : undefined,
			});
			return { status: r.statusCode, body: await r.body.json().catch(() => undefined) };
		};
		expect(
			(
				await call('POST', '/api/v3/webhooks/', 't', {
					url: recv.url(),
					events: ['appointment.created'],
				})
			).status,
		).toBe(201);
		expect((await call('POST', '/__sandbox/appointments/', 'a', {})).status).toBe(201);
		const deadline = Date.now() + 10000;
		while (recv.got.length === 0 && Date.now() < deadline)
			await new Promise((r) => setTimeout(r, 20));
		expect(recv.got).toHaveLength(1);
		await agent.close();
		cli.child.kill('SIGINT');
		// the process waits for the attempt in flight
		const early = await Promise.race([
			cli.exit.then(() => 'exited'),
			new Promise((r) => setTimeout(() => r('running'), 300)),
		]);
		expect(early).toBe('running');
		release();
		expect(await cli.exit).toBe(0);
		expect(answered).toBe(1);
		// What the sandbox itself recorded: the attempt in flight at SIGINT finished with the receiver's 200.
		expect(cli.stderr()).toMatch(
			/SIGINT received[\s\S]*stopped; deliveries: 1 succeeded, 0 given up, 1 attempts/,
		);
	} finally {
		release();
		if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
		await recv.close();
		fs.rmSync(dir, { recursive: true, force: true });
	}
});

it('refuses bad flags with exit code 2 and the usage', async () => {
	// Four independent processes, started together.
	const clis = [
		['--pagination', 'offset'],
		['--port', 'x'],
		['--tls-cert', 'a.pem'],
		['--bogus'],
	].map(run);
	for (const cli of clis) {
		expect(await cli.exit).toBe(2);
		expect(cli.stderr()).toMatch(/Usage: npm run sandbox/);
	}
});
