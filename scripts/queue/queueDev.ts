/**
 * `npm run dev -- --queue`: the dev stack in n8n's queue mode (scripts/queue/queueStack.ts) with the trigger example
 * published. Ctrl-C unpublishes it (removing its sandbox subscription) and stops everything it started.
 * State lives under .dev/queue-dev/ and is reused by the next run.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SetupError } from '../install';
import { DEV_DIR } from '../paths';
import { pollUntil, stopAll } from '../proc';
import { startQueueStack, type QueueStack } from './queueStack';

const DIR = path.join(DEV_DIR, 'queue-dev');
const DEV_TRIGGER_WORKFLOW = 'apptReactToEvents';

function loadOrCreateLogin() {
	fs.mkdirSync(DIR, { recursive: true });
	const file = path.join(DIR, 'login.json');
	if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
	const login = { email: 'owner@example.com', password: `Dev-${crypto.randomBytes(9).toString('base64url')}1A`, firstName: 'Dev', lastName: 'Owner' };
	fs.writeFileSync(file, JSON.stringify(login, null, 2), { mode: 0o600 });
	return login;
}

const ourSubscriptions = async (stack: QueueStack) =>
	((await stack.admin.ok('GET', '/__sandbox/webhooks/')).webhooks as any[]).filter((w) => String(w.url).startsWith(`${stack.url}/`));

export async function runQueueDev(): Promise<void> {
	const t0 = Date.now();
	const login = loadOrCreateLogin();
	let stack: QueueStack | undefined;
	let published = false;
	let stopping: Promise<void> | undefined;
	const shutdown = (why: string) => {
		stopping ??= (async () => {
			console.log(`\n${why}: stopping...`);
			if (stack && published) {
				try {
					await stack.api.ok('POST', `/api/v1/workflows/${DEV_TRIGGER_WORKFLOW}/deactivate`);
					const s = stack;
					await pollUntil('the sandbox subscription to be removed', async () => ((await ourSubscriptions(s)).length ? undefined : true), { timeoutMs: 10000 });
					console.log('Trigger workflow unpublished; the sandbox holds no subscription of this n8n any more.');
				} catch (e) {
					console.error(`Could not unpublish the trigger workflow: ${(e as Error).message}`);
				}
			}
			await stack?.stop();
			await stopAll();
			console.log('Stopped n8n (main, webhook processes, workers), nginx, Redis, Postgres and the sandbox.');
		})();
		return stopping;
	};
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => void shutdown(sig).then(() => process.exit(0)));
	try {
		stack = await startQueueStack({ dir: DIR, owner: login, reimport: 'changed', log: (m) => console.log(m) });
		if (stopping) return;
		await stack.api.ok('POST', `/api/v1/workflows/${DEV_TRIGGER_WORKFLOW}/activate`);
		published = true;
		const s = stack;
		await pollUntil('the published trigger workflow to subscribe', async () => ((await ourSubscriptions(s)).length ? true : undefined), { timeoutMs: 30000 });
	} catch (e) {
		console.error(`\nERROR: ${e instanceof SetupError ? e.message : ((e as Error).stack ?? e)}`);
		await shutdown('setup failed');
		process.exit(1);
	}
	if (stopping) return;
	const rel = (f: string) => path.relative(process.cwd(), f);
	console.log(
		[
			'',
			`Ready in ${Math.round((Date.now() - t0) / 1000)} s (queue mode).`,
			'',
			`  n8n editor (main):   ${stack.url}/   or directly ${stack.main.url}/   (self-signed certificate)`,
			`  e-mail / password:   ${login.email} / ${login.password}`,
			`  Webhooks:            ${stack.url}/webhook/… -> nginx -> ${stack.webhooks.map((w) => w.name).join(', ')}`,
			`  Workers:             ${stack.workers.map((w) => w.name).join(', ')}`,
			`  Sandbox:             ${stack.sandboxUrl}   (admin token in ${rel(path.join(DIR, 'secrets.json'))})`,
			`  Mailbox:             ${stack.sandboxUrl}/dashboard/mailbox/   (credential "Local mail sink": SMTP 127.0.0.1:${stack.sandbox.smtpPort})`,
			`  Published:           ${DEV_TRIGGER_WORKFLOW} (its Appointments Trigger is subscribed through nginx)`,
			'',
			`  Logs: ${rel(DIR)}/*/*.log (one per n8n process), ${rel(stack.nginx.accessLog)}. Ctrl-C stops everything.`,
			'',
		].join('\n'),
	);
	const code = await Promise.race([stack.main, ...stack.webhooks, ...stack.workers].map((p) => p.running()!.exited.then((c) => `${p.name} (code ${c})`)));
	if (!stopping) {
		console.error(`${code} exited unexpectedly; see its log under ${rel(DIR)}`);
		await shutdown('a process exited');
		process.exit(1);
	}
}
