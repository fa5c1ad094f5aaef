/**
 * `npm run dev`: the sandbox with demo data and its local mail sink + a real n8n 2.41.1 (https, self-signed) with
 * our package, an owner, the "Appointments API" and "Local mail sink" (SMTP) credentials, the examples imported
 * and the trigger workflow published.
 * Stays up until Ctrl-C, then deactivates the trigger workflow (removing its sandbox subscription) and
 * stops everything it started (scripts/devSession.ts). All state lives under .dev/ and is reused by the next run.
 * `npm run dev -- --queue`: the same in n8n's queue mode (scripts/queue/queueDev.ts).
 */
import path from 'node:path';
import {
	DEV_TRIGGER_WORKFLOW,
	DevSession,
	loadOrCreateLogin,
	WORKFLOW_LIST,
	type DevLogin,
} from './devSession';
import { SetupError } from './install';
import { installN8nWithProgress } from './installProgress';
import { DEV_DIR } from './paths';
import { preferredPort, stopAll } from './proc';
import { startStack, type Stack } from './stack';

// APPOINTMENTS_DEV_FOLDER: another n8n user folder (test/e2e/devSignals.test.ts runs `npm run dev` beside yours).
const USER_FOLDER = process.env.APPOINTMENTS_DEV_FOLDER || path.join(DEV_DIR, 'dev');

function readyText(stack: Stack, login: DevLogin, t0: number): string {
	const n8nUrl = stack.n8n.url;
	const certPath = path.relative(process.cwd(), stack.n8n.cert.certPath);
	return [
		'',
		`Ready in ${Math.round((Date.now() - t0) / 1000)} s.`,
		'',
		`  n8n:       ${n8nUrl}${WORKFLOW_LIST}   (self-signed certificate: ${certPath}; accept it in the browser)`,
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
			(e) =>
				`    - ${e.name}${e.id === DEV_TRIGGER_WORKFLOW ? '   [published: its Appointments Trigger is subscribed]' : ''}`,
		),
		`  Credentials: "Appointments API" points at the sandbox, "Local mail sink" (SMTP) at its mail sink.`,
		'',
		'  Create an appointment (dashboard: Appointments › New appointment, or curl); the published workflow runs',
		'  within a second (see Executions in n8n, and the delivery under Deliveries in the dashboard):',
		`    curl -s -X POST ${stack.sandboxUrl}/__sandbox/appointments/ \\`,
		`      -H 'Authorization: Bearer ${login.sandboxAdminToken}' -H 'Content-Type: application/json' \\`,
		`      -d '{"status":"CONFIRMED"}'`,
		'',
		`  Logs: ${path.relative(process.cwd(), stack.n8n.logFile)}. Ctrl-C stops everything (from a script: SIGTERM or SIGINT to npm's process).`,
		'',
	].join('\n');
}

async function main() {
	const t0 = Date.now();
	// The first run's n8n install is silent for minutes; this one says how far it got.
	await installN8nWithProgress((m) => console.log(m));
	const login = loadOrCreateLogin(USER_FOLDER, true);
	const session = new DevSession<Stack>('Stopped n8n and the sandbox.');
	const start = async () =>
		startStack({
			userFolder: USER_FOLDER,
			owner: {
				email: login.email,
				password: login.password,
				firstName: login.firstName,
				lastName: login.lastName,
			},
			apiToken: login.sandboxApiToken,
			adminToken: login.sandboxAdminToken,
			reimport: 'changed',
			// n8n's and the sandbox's usual ports when free, so the URLs stay the same from one run to the next.
			n8nPort: await preferredPort(5678),
			sandbox: { port: await preferredPort(8787), smtpPort: await preferredPort(2525) },
			log: (m) => console.log(m),
		});
	const stack = await session.start(start, (s) => s.n8n.url);
	if (!stack) return;
	console.log(readyText(stack, login, t0));
	// Exit (with cleanup) if n8n dies on its own.
	await session.stayUntil(
		stack.n8n.proc.exited.then(
			(code) => `n8n exited unexpectedly (code ${code}); see ${stack.n8n.logFile}`,
		),
	);
}

const run = process.argv.includes('--queue')
	? () => import('./queue/queueDev').then((m) => m.runQueueDev())
	: main;
run().catch(async (e) => {
	console.error(`\nERROR: ${e instanceof SetupError ? e.message : ((e as Error).stack ?? e)}`);
	await stopAll();
	process.exit(1);
});
