/**
 * The set-up every e2e suite shares: a stack (sandbox + real n8n 2.41.1, test/e2e) in a user folder of its own,
 * and for the browser suites Debian's chromium on n8n's editor, signed in as the suite's owner.
 *
 *   startE2EStack(suite, owner)       the stack; a failure says what could not be set up (every test then fails)
 *   openEditor(suite, owner, opts?)   stack + browser + page on n8n (signed in unless signIn: false)
 *   closeEditor()                     closes what openEditor opened (afterAll)
 *   signIn(page, owner)               n8n's sign-in form
 *   settled(page)                     waits for the page's running animations to end (before a screenshot)
 */
import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import { selectors, type Browser, type BrowserContext, type Page } from 'playwright-core';

import { launchBrowser } from '../../scripts/browser';
import { DEV_DIR } from '../../scripts/paths';
import { killAllOnSignals, stopAll } from '../../scripts/proc';
import { startStack, type Stack } from '../../scripts/stack';

/** n8n's GENERIC_TIMEZONE in the stack, and the sandbox's account zone. */
export const TZ = 'America/Santiago';

export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

/**
 * A fresh n8n user folder (a database of its own) for one e2e run: .dev/<suite>/run-<time>-<pid> (CI runs two jests
 * at once: .ci/run). Keeps the previous run's
 * folder for debugging, and any folder touched in the last 30 minutes (a run going on in parallel); removes the rest,
 * so the suites do not pile up databases.
 */
export function e2eUserFolder(suite: string): string {
	const root = path.join(DEV_DIR, suite);
	if (fs.existsSync(root)) {
		const recent = (d: string) =>
			Date.now() - fs.statSync(path.join(root, d)).mtimeMs < 30 * 60_000;
		for (const d of fs.readdirSync(root).sort().slice(0, -1)) {
			if (!recent(d)) fs.rmSync(path.join(root, d), { recursive: true, force: true });
		}
	}
	return path.join(root, `run-${DateTime.utc().toFormat('yyyyMMdd-HHmmss')}-${process.pid}`);
}

/** Names the user folder made once per run (test/helpers/e2eSetup.ts) that each stack's folder starts as a copy of. */
export const E2E_TEMPLATE_ENV = 'APPOINTMENTS_E2E_TEMPLATE';

/** The stack of one suite (its user folder under .dev/<suite>), examples imported afresh. */
export async function startE2EStack(suite: string, owner: Owner): Promise<Stack> {
	killAllOnSignals();
	try {
		const userFolder = e2eUserFolder(suite);
		const template = process.env[E2E_TEMPLATE_ENV];
		if (template) fs.cpSync(template, userFolder, { recursive: true });
		return await startStack({
			userFolder,
			owner,
			reimport: 'always',
			importOver: 'api', // no CLI boots: the CLI import stays covered by the compat suites and npm run dev
			log: (m) => process.stderr.write(`[${suite}] ${m}\n`),
		});
	} catch (e) {
		// Every test then fails with this error (jest's rule for a failing beforeAll): never a silent skip.
		process.stderr.write(
			`\n[${suite}] ERROR: could not set up the stack (build and pack, n8n install, sandbox, n8n start, owner and API key):\n${(e as Error).message}\n\n`,
		);
		throw e;
	}
}

export interface Editor {
	stack: Stack;
	browser: Browser;
	context: BrowserContext;
	page: Page;
}

let started: Partial<Editor> = {};

/** The stack and a 1440×900 chromium page on its n8n, in the account's zone, signed in unless `signIn: false`. */
export async function openEditor(
	suite: string,
	owner: Owner,
	opts: { signIn?: boolean } = {},
): Promise<Editor> {
	const stack = (started.stack = await startE2EStack(suite, owner));
	selectors.setTestIdAttribute('data-test-id'); // n8n's test ids
	const browser = (started.browser = await launchBrowser());
	const context = await browser.newContext({
		baseURL: stack.n8n.url,
		ignoreHTTPSErrors: true, // the stack's self-signed certificate
		viewport: { width: 1440, height: 900 },
		timezoneId: TZ,
		locale: 'en-US',
	});
	const page = await context.newPage();
	if (opts.signIn !== false) await signIn(page, owner);
	return { stack, browser, context, page };
}

/** Closes the browser and stops the stack openEditor started (also after it failed half-way). */
export async function closeEditor(): Promise<void> {
	await started.browser?.close();
	await started.stack?.stop();
	started = {};
	await stopAll();
}

export async function signIn(page: Page, owner: Owner): Promise<void> {
	await page.goto('/signin');
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(owner.email);
	await page.getByTestId('password').locator('input').fill(owner.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL(/\/(home|workflows)/);
}

/** Waits for the page's running animations (a banner fading in, a panel sliding) to finish: the end state. */
export async function settled(page: Page): Promise<void> {
	await page.evaluate('document.fonts.ready');
	await page.evaluate(
		'Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined)))',
	);
}
