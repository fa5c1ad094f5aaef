/**
 * What `npm run dev` and `npm run dev -- --queue` share: the owner's login kept under .dev/, the trigger example
 * published once the stack is up (ready only when the sandbox holds its subscription), and Ctrl-C (or the death
 * of an n8n process) unpublishing it, waiting until the sandbox dropped the subscription, and stopping everything.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SetupError } from './install';
import { pollUntil, stopAll } from './proc';
import { activate, deactivate, type StackCore } from './stack';

/** The example whose trigger is published in dev (a branch per event). */
export const DEV_TRIGGER_WORKFLOW = 'apptReactToEvents';

/** The page the printed n8n address opens (after signing in): the workflow list, not n8n's own start page. */
export const WORKFLOW_LIST = '/home/workflows';

export interface DevLogin {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
	sandboxApiToken?: string;
	sandboxAdminToken?: string;
}

/** The owner (and with `sandboxTokens` the sandbox's tokens) of the last run in `dir`, or new ones. */
export function loadOrCreateLogin(dir: string, sandboxTokens: boolean): DevLogin {
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, 'login.json');
	if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8'));
	const login: DevLogin = {
		email: 'owner@example.com',
		// n8n wants 8+ characters with a digit and an upper-case letter.
		password: `Dev-${crypto.randomBytes(9).toString('base64url')}1A`,
		firstName: 'Dev',
		lastName: 'Owner',
		...(sandboxTokens
			? {
					sandboxApiToken: crypto.randomBytes(18).toString('base64url'),
					sandboxAdminToken: crypto.randomBytes(18).toString('base64url'),
				}
			: {}),
	};
	fs.writeFileSync(file, JSON.stringify(login, null, 2), { mode: 0o600 });
	return login;
}

/** Whether the sandbox holds a subscription whose URL starts with `prefix`. */
async function subscribed(stack: StackCore, prefix: string): Promise<boolean> {
	const { webhooks } = await stack.admin.ok('GET', '/__sandbox/webhooks/');
	return (webhooks as Array<{ url: unknown }>).some((w) => String(w.url).startsWith(prefix));
}

/** One dev run: start the stack, publish the trigger example, stay until a signal or a process exit. */
export class DevSession<S extends StackCore> {
	private stack?: S;
	/** The URL n8n's production webhooks start with (n8n's own, or nginx's in queue mode). */
	private base = '';
	private published = false;
	private stopping?: Promise<void>;

	constructor(private readonly stoppedMessage: string) {
		for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
			process.on(sig, () => void this.shutdown(sig).then(() => process.exit(0)));
	}

	/** Starts the stack and publishes the trigger example; undefined when a signal came first. Exits on failure. */
	async start(startStack: () => Promise<S>, baseOf: (stack: S) => string): Promise<S | undefined> {
		try {
			const stack = await startStack();
			this.stack = stack;
			this.base = baseOf(stack);
			if (this.stopping) return undefined;
			await activate(stack.api, DEV_TRIGGER_WORKFLOW);
			this.published = true;
			// n8n registers the trigger's webhook asynchronously: "Ready" only once the sandbox holds the subscription.
			await pollUntil(
				'the published trigger workflow to subscribe in the sandbox',
				async () => ((await subscribed(stack, `${this.base}/webhook/`)) ? true : undefined),
				{ timeoutMs: 30000 },
			);
			return this.stopping ? undefined : stack;
		} catch (e) {
			console.error(`\nERROR: ${e instanceof SetupError ? e.message : ((e as Error).stack ?? e)}`);
			await this.shutdown('setup failed');
			process.exit(1);
		}
	}

	/** Waits for `exited` (a process of the stack ending on its own, with what to say) and then stops the rest. */
	async stayUntil(exited: Promise<string>): Promise<void> {
		const message = await exited;
		if (this.stopping) return;
		console.error(message);
		await this.shutdown('n8n exited');
		process.exit(1);
	}

	private shutdown(why: string): Promise<void> {
		this.stopping ??= (async () => {
			console.log(`\n${why}: stopping...`);
			if (this.stack && this.published) await this.unpublish(this.stack);
			await this.stack?.stop();
			await stopAll();
			console.log(this.stoppedMessage);
		})();
		return this.stopping;
	}

	private async unpublish(stack: S): Promise<void> {
		try {
			await deactivate(stack.api, DEV_TRIGGER_WORKFLOW);
			await pollUntil(
				'the sandbox subscription to be removed',
				async () => ((await subscribed(stack, `${this.base}/`)) ? undefined : true),
				{ timeoutMs: 10000 },
			);
			console.log(
				'Trigger workflow unpublished; the sandbox holds no subscription of this n8n any more.',
			);
		} catch (e) {
			console.error(`Could not unpublish the trigger workflow: ${(e as Error).message}`);
		}
	}
}
