/**
 * `npm run dev`: the sandbox with demo data and its local mail sink + a real n8n 2.41.1 (https, self-signed) with
 * our package, an owner, the "Appointments API" and "Local mail sink" (SMTP) credentials, the examples imported
 * and the trigger workflow published.
 * Stays up until Ctrl-C, then deactivates the trigger workflow (removing its sandbox subscription) and
 * stops everything it started. All state lives under .dev/ and is reused by the next run.
 * `npm run dev -- --queue`: the same in n8n's queue mode (scripts/queue/queueDev.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SetupError } from './install';
import { DEV_DIR } from './paths';
import { pollUntil, preferredPort, stopAll } from './proc';
import { activate, deactivate, startStack, type Stack } from './stack';

const USER_FOLDER = path.join(DEV_DIR, 'dev');
const LOGIN_FILE = path.join(USER_FOLDER, 'login.json');
/** The example whose trigger is published in dev (a branch per event). */
const DEV_TRIGGER_WORKFLOW = 'apptReactToEvents';

function loadOrCreateLogin() {
	fs.mkdirSync(USER_FOLDER, { recursive: true });
	if (fs.existsSync(LOGIN_FILE)) return JSON.parse(fs.readFileSync(LOGIN_FILE, 'utf8'));
	const login = {
		email: 'owner@example.com',
		// n8n wants 8+ characters with a digit and an upper-case letter.
		password: `Dev-${crypto.randomBytes(9).toString('base64url')}1A`,
		firstName: 'Dev',
		lastName: 'Owner',
		sandboxApiToken: crypto.randomBytes(18).toString('base64url'),
		sandboxAdminToken: crypto.randomBytes(18).toString('base64url'),
	};
	fs.writeFileSync(LOGIN_FILE, JSON.stringify(login, null, 2), { mode: 0o600 });
	return login;
}

async function main() {
	const t0 = Date.now();
	const login = loadOrCreateLogin();
	let stack: Stack | undefined;
	let active: string | undefined;
	let stopping: Promise<void> | undefined;
	const shutdown = (why: string) => {
		stopping ??= (async () => {
			console.log(`\n${why}: stopping...`);
			if (stack && active) {
				try {
					await deactivate(stack.api, active);
					const n8nUrl = stack.n8n.url;
					await pollUntil(
						'the sandbox subscription to be removed',
						async () => {
							const { webhooks } = await stack!.admin.ok('GET', '/__sandbox/webhooks/');
							return webhooks.some((w: any) => String(w.url).startsWith(`${n8nUrl}/`)) ? undefined : true;
						},
						{ timeoutMs: 10000 },
					);
					console.log('Trigger workflow unpublished; the sandbox holds no subscription of this n8n any more.');
				} catch (e) {
					console.error(`Could not deactivate the trigger workflow: ${(e as Error).message}`);
				}
			}
			await stack?.stop();
			await stopAll();
			console.log('Stopped n8n and the sandbox.');
		})();
		return stopping;
	};
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.on(sig, () => void shutdown(sig).then(() => process.exit(0)));
	}

	stack = await startStack({
		userFolder: USER_FOLDER,
		owner: { email: login.email, password: login.password, firstName: login.firstName, lastName: login.lastName },
		apiToken: login.sandboxApiToken,
		adminToken: login.sandboxAdminToken,
		reimport: 'changed',
		// n8n's and the sandbox's usual ports when free, so the URLs stay the same from one run to the next.
		n8nPort: await preferredPort(5678),
		sandbox: { port: await preferredPort(8787), smtpPort: await preferredPort(2525) },
		log: (m) => console.log(m),
	});
	if (stopping) return;
	await activate(stack.api, DEV_TRIGGER_WORKFLOW);
	active = DEV_TRIGGER_WORKFLOW;
	// n8n registers the trigger's webhook asynchronously: "Ready" only once the sandbox holds the subscription.
	const hookUrl = `${stack.n8n.url}/webhook/`;
	await pollUntil(
		'the published trigger workflow to subscribe in the sandbox',
		async () => {
			const { webhooks } = await stack!.admin.ok('GET', '/__sandbox/webhooks/');
			return webhooks.some((w: any) => String(w.url).startsWith(hookUrl)) ? true : undefined;
		},
		{ timeoutMs: 30000 },
	);
	if (stopping) return;
	const n8nUrl = stack.n8n.url;
	const certPath = path.relative(process.cwd(), stack.n8n.cert.certPath);
	console.log(
		[
			'',
			`Ready in ${Math.round((Date.now() - t0) / 1000)} s.`,
			'',
			`  n8n:       ${n8nUrl}/   (self-signed certificate: ${certPath}; accept it in the browser)`,
			`  email:     ${login.email}`,
			`  password:  ${login.password}`,
			'',
			`  Sandbox:   ${stack.sandboxUrl}   (seeded with demo appointments)`,
			`  Dashboard: ${stack.sandboxUrl}/dashboard/   (sign in with the admin token)`,
			`  Mailbox:   ${stack.sandboxUrl}/dashboard/mailbox/   (what the workflows email; SMTP 127.0.0.1:${stack.smtpPort})`,
			`  Admin token for /__sandbox/ and the dashboard: ${login.sandboxAdminToken}`,
			'',
			'  Workflows (imported from examples/; open one and press "Execute workflow"):',
			...stack.examples.map(
				(e) => `    - ${e.name}${e.id === DEV_TRIGGER_WORKFLOW ? '   [published: its Appointments Trigger is subscribed]' : ''}`,
			),
			`  Credentials: "Appointments API" points at the sandbox, "Local mail sink" (SMTP) at its mail sink.`,
			'',
			'  Create an appointment (dashboard: Appointments › New appointment, or curl); the published workflow runs',
			'  within a second (see Executions in n8n, and the delivery under Deliveries in the dashboard):',
			`    curl -s -X POST ${stack.sandboxUrl}/__sandbox/appointments/ \\`,
			`      -H 'Authorization: Bearer ${login.sandboxAdminToken}' -H 'Content-Type: application/json' \\`,
			`      -d '{"status":"CONFIRMED"}'`,
			'',
			`  Logs: ${path.relative(process.cwd(), stack.n8n.logFile)}. Press Ctrl-C to stop everything.`,
			'',
		].join('\n'),
	);
	// Exit (with cleanup) if n8n dies on its own.
	const code = await stack.n8n.proc.exited;
	if (!stopping) {
		console.error(`n8n exited unexpectedly (code ${code}); see ${stack.n8n.logFile}`);
		await shutdown('n8n exited');
		process.exit(1);
	}
}

const run = process.argv.includes('--queue') ? () => import('./queue/queueDev').then((m) => m.runQueueDev()) : main;
run().catch(async (e) => {
	console.error(`\nERROR: ${e instanceof SetupError ? e.message : (e as Error).stack ?? e}`);
	await stopAll();
	process.exit(1);
});
