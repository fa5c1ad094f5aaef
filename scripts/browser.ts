/**
 * A headless Chromium for the browser tests (sandbox dashboard, n8n editor) and the screenshots in
 * docs/screenshots/. Playwright cannot download its own browser here, so Debian's `chromium` is used: installed
 * with apt-get when missing and we are root, otherwise a clear message says what to install.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { SetupError } from './install';
import { ROOT } from './paths';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.join(ROOT, 'docs', 'screenshots');

/**
 * Installs Debian's chromium when it is missing (root only), with chromium-l10n: the en-GB locale the browser draws
 * date inputs in (see launchBrowser). Throws a SetupError saying what to do otherwise.
 */
export function ensureChromium(log: (m: string) => void = console.log): string {
	const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
	if (fs.existsSync(CHROMIUM)) {
		ensureLocale(isRoot, log);
		return CHROMIUM;
	}
	if (!isRoot) {
		throw new SetupError(
			`Chromium is needed for the browser tests but ${CHROMIUM} does not exist. Install it as root: ` +
				`"apt-get update && apt-get install -y chromium chromium-l10n" (or set CHROMIUM_PATH to a Chromium binary).`,
		);
	}
	log(
		'Installing Debian chromium for the browser tests (apt-get install -y chromium chromium-l10n)...',
	);
	for (const args of [
		['update'],
		['install', '-y', '--no-install-recommends', 'chromium', 'chromium-l10n'],
	]) {
		const r = spawnSync('apt-get', args, {
			stdio: ['ignore', 'ignore', 'inherit'],
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
		});
		if (r.status !== 0) {
			throw new SetupError(
				`apt-get ${args.join(' ')} failed (exit ${r.status}); install chromium by hand`,
			);
		}
	}
	if (!fs.existsSync(CHROMIUM))
		throw new SetupError(`apt-get installed chromium, but ${CHROMIUM} is missing`);
	return CHROMIUM;
}

/** Debian's chromium-l10n file for en-GB; a Chromium of one's own (CHROMIUM_PATH) brings its locales along. */
const EN_GB_LOCALE = '/usr/lib/chromium/locales/en-GB.pak';

/**
 * A machine that had chromium before the date inputs needed en-GB: add chromium-l10n (root), or say what the
 * pictures will lack. Only the pictures' date format depends on it, so a failure here stops nothing.
 */
function ensureLocale(isRoot: boolean, log: (m: string) => void): void {
	if (process.env.CHROMIUM_PATH || fs.existsSync(EN_GB_LOCALE)) return;
	if (isRoot) {
		log("Installing chromium-l10n (the en-GB locale the dashboard's date inputs are drawn in)...");
		const r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium-l10n'], {
			stdio: ['ignore', 'ignore', 'inherit'],
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
		});
		if (r.status === 0) return;
	}
	log(
		'chromium-l10n is not installed ("apt-get install -y chromium-l10n" as root): date inputs show mm/dd/yyyy.',
	);
}

/**
 * Launches headless Chromium. The background-networking flags keep Chromium from calling Google's hosts, which
 * this closed network refuses noisily; --no-sandbox because tests run as root. Chromium draws date inputs in its
 * own UI language whatever the page's locale: en-GB (dd/mm/yyyy, as the dashboard writes dates) through --lang and,
 * since headless Chromium on Linux reads only the environment, LANGUAGE; it needs chromium-l10n's en-GB locale
 * (without it: mm/dd/yyyy).
 */
export async function launchBrowser(): Promise<Browser> {
	const executablePath = ensureChromium();
	return await chromium.launch({
		executablePath,
		headless: true,
		env: { ...process.env, LANGUAGE: 'en_GB' },
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
			'--disable-dev-shm-usage',
			'--lang=en-GB',
		],
	});
}

/**
 * Saves a screenshot as docs/screenshots/<name>.png when UPDATE_SCREENSHOTS=1 (`npm run screenshots`), so a
 * normal test run never rewrites committed files.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
	if (process.env.UPDATE_SCREENSHOTS !== '1') return;
	fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
	await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}
