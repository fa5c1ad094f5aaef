/**
 * `npm run dev -- --queue`: the dev stack in n8n's queue mode (scripts/queue/queueStack.ts) with the trigger example
 * published. Ctrl-C unpublishes it (removing its sandbox subscription) and stops everything it started
 * (scripts/devSession.ts). State lives under .dev/queue-dev/ and is reused by the next run.
 */
import path from 'node:path';
import {
	DEV_TRIGGER_WORKFLOW,
	DevSession,
	loadOrCreateLogin,
	WORKFLOW_LIST,
	type DevLogin,
} from '../devSession';
import { DEV_DIR } from '../paths';
import { startQueueStack, type QueueStack } from './queueStack';

const DIR = path.join(DEV_DIR, 'queue-dev');

function readyText(stack: QueueStack, login: DevLogin, t0: number): string {
	const rel = (f: string) => path.relative(process.cwd(), f);
	return [
		'',
		`Ready in ${Math.round((Date.now() - t0) / 1000)} s (queue mode).`,
		'',
		`  n8n editor (main):   ${stack.url}${WORKFLOW_LIST}   or directly ${stack.main.url}${WORKFLOW_LIST}   (self-signed certificate)`,
		`  e-mail / password:   ${login.email} / ${login.password}`,
		`  Webhooks:            ${stack.url}/webhook/… -> nginx -> ${stack.webhooks.map((w) => w.name).join(', ')}`,
		`  Workers:             ${stack.workers.map((w) => w.name).join(', ')}`,
		`  Sandbox:             ${stack.sandboxUrl}   (admin token in ${rel(path.join(DIR, 'secrets.json'))})`,
		`  Mailbox:             ${stack.sandboxUrl}/dashboard/mailbox/   (credential "Local mail sink": SMTP 127.0.0.1:${stack.smtpPort})`,
		`  Published:           ${DEV_TRIGGER_WORKFLOW} (its Appointments Trigger is subscribed through nginx)`,
		'',
		`  Logs: ${rel(DIR)}/*/*.log (one per n8n process), ${rel(stack.nginx.accessLog)}. Ctrl-C stops everything.`,
		'',
	].join('\n');
}

export async function runQueueDev(): Promise<void> {
	const t0 = Date.now();
	const login = loadOrCreateLogin(DIR, false);
	const session = new DevSession<QueueStack>(
		'Stopped n8n (main, webhook processes, workers), nginx, Redis, Postgres and the sandbox.',
	);
	const stack = await session.start(
		() =>
			startQueueStack({ dir: DIR, owner: login, reimport: 'changed', log: (m) => console.log(m) }),
		(s) => s.url,
	);
	if (!stack) return;
	console.log(readyText(stack, login, t0));
	const processes = [stack.main, ...stack.webhooks, ...stack.workers];
	const exited = Promise.race(
		processes.map((p) => p.running()!.exited.then((c) => `${p.name} (code ${c})`)),
	);
	await session.stayUntil(
		exited.then(
			(which) =>
				`${which} exited unexpectedly; see its log under ${path.relative(process.cwd(), DIR)}`,
		),
	);
}
