/**
 * `npm run sandbox -- --port 8787 [options]`: runs the sandbox until SIGINT/SIGTERM.
 * Prints `SANDBOX_URL=<url>` on a line of its own, then the tokens (SANDBOX_TOKEN=, SANDBOX_RESTRICTED_TOKEN=,
 * SANDBOX_ADMIN_TOKEN=), SANDBOX_DASHBOARD=<url>/dashboard/ and, with the mail sink on (the default), SANDBOX_SMTP_PORT=
 * and SANDBOX_MAILBOX=<url>/dashboard/mailbox/. `--help` lists every flag.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';

import type { Sandbox, SandboxOptions } from './index';

const HELP = `Usage: npm run sandbox -- [options]

  --port N                   port (default 8787; 0 picks a free one)
  --host H                   address to listen on (default 127.0.0.1)
  --smtp-port N|off          port of the local mail sink, SMTP on the same address (default 2525; 0 picks a
                             free one; off: no SMTP server)
  --tls-cert FILE            serve https with this certificate (PEM) ...
  --tls-key FILE             ... and this key (PEM)
  --ca FILE                  extra CA (PEM) trusted for https callbacks, besides the system CAs (repeatable)
  --token T                  full-access API token (repeatable; default: one random token)
  --restricted-token T       appointments-only token: /webhooks/ answers 403 (repeatable)
  --admin-token T            token for /__sandbox/ (default: random)
  --seed N                   number of seed appointments (default 300)
  --seed-value N             seed of the deterministic generator (default 1)
  --now ISO                  fix "now" for the seed data (default: current time)
  --time-zone TZ             account time zone (default America/Santiago)
  --dst-wall-clock zoneinfo|earlier|later|refuse
                             an offset-less filter time the account zone skips or repeats (default zoneinfo)
  --pagination page|cursor|none              (default page)
  --mutation-response body|empty             (default body: 200 + record; empty: 204)
  --next-links absolute|relative             (default absolute)
  --next-origin ORIGIN       origin written into absolute next links
  --link-query-order request|sorted          (default request: the request's order; sorted: parameters
                             sorted by name and encoded as Django REST framework writes them)
  --webhook-list paginated|array             (default paginated)
  --page-size N              page size when a list request has no page_size (default 50, max 500)
  --retry-schedule MS,MS,... delays between delivery attempts (default 500,1000,2000,4000,8000)
  --delivery-timeout-ms N    per-attempt time-out (default 10000)
  --delivery-concurrency N   attempts in flight at once (default 64)
  --duplicate-delivery       deliver every event twice
  --shuffle-delivery         shuffle the order of queued deliveries
  --shuffle-window-ms N      events queued within this window are shuffled together (default 100)
  --allow-insecure-callbacks accept http:// callback URLs (sandbox only; the spec demands https)
  --latency-ms N             added to every API response
  --repeat-cancel idempotent|email-again|not-found
                             a DELETE of an already cancelled appointment (default idempotent)
  --taken-slot allow|conflict|bad-request
                             a reschedule onto a taken slot: accepted (default), 409 or 400
  --slot-minutes N           how long an appointment takes its slot, for --taken-slot (default 30)
  --cancel-removes           a DELETE cancels and then removes the appointment (a later GET answers 404)
  --read-lag-ms N            for N ms after its creation an appointment is not readable: GET answers 404,
                             lists omit it (a read replica behind the primary; default 0)
  --help                     this text
`;

function fail(message: string): never {
	process.stderr.write(`sandbox: ${message}\n\n${HELP}`);
	process.exit(2);
}

function int(name: string, v: string | undefined, min = 0): number | undefined {
	if (v === undefined) return undefined;
	if (!/^\d+$/.test(v) || Number(v) < min)
		fail(`--${name} expects an integer >= ${min}, got "${v}"`);
	return Number(v);
}

function oneOf<T extends string>(
	name: string,
	v: string | undefined,
	allowed: readonly T[],
): T | undefined {
	if (v === undefined) return undefined;
	if (!(allowed as readonly string[]).includes(v))
		fail(`--${name} expects one of ${allowed.join(', ')}, got "${v}"`);
	return v as T;
}

function read(name: string, file: string): string {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch (e) {
		fail(`--${name}: cannot read ${file}: ${(e as Error).message}`);
	}
}

/** The flags as node's parseArgs reads them; --help lists them for the user. */
const FLAGS = {
	port: { type: 'string' },
	host: { type: 'string' },
	'smtp-port': { type: 'string' },
	'tls-cert': { type: 'string' },
	'tls-key': { type: 'string' },
	ca: { type: 'string', multiple: true },
	token: { type: 'string', multiple: true },
	'restricted-token': { type: 'string', multiple: true },
	'admin-token': { type: 'string' },
	seed: { type: 'string' },
	'seed-value': { type: 'string' },
	now: { type: 'string' },
	'time-zone': { type: 'string' },
	'dst-wall-clock': { type: 'string' },
	pagination: { type: 'string' },
	'mutation-response': { type: 'string' },
	'next-links': { type: 'string' },
	'next-origin': { type: 'string' },
	'link-query-order': { type: 'string' },
	'webhook-list': { type: 'string' },
	'page-size': { type: 'string' },
	'retry-schedule': { type: 'string' },
	'delivery-timeout-ms': { type: 'string' },
	'delivery-concurrency': { type: 'string' },
	'duplicate-delivery': { type: 'boolean' },
	'shuffle-delivery': { type: 'boolean' },
	'shuffle-window-ms': { type: 'string' },
	'allow-insecure-callbacks': { type: 'boolean' },
	'latency-ms': { type: 'string' },
	'repeat-cancel': { type: 'string' },
	'taken-slot': { type: 'string' },
	'slot-minutes': { type: 'string' },
	'cancel-removes': { type: 'boolean' },
	'read-lag-ms': { type: 'string' },
	help: { type: 'boolean' },
} as const;

type Values = Record<string, string | string[] | boolean | undefined>;

function parseFlags(): Values {
	try {
		return parseArgs({ options: FLAGS, strict: true, allowPositionals: false }).values;
	} catch (e) {
		fail((e as Error).message);
	}
}

/** The flags as SandboxOptions; a wrong value ends the process with its flag named. */
function toOptions(values: Values): SandboxOptions {
	const s = (k: string) => values[k] as string | undefined;
	const list = (k: string) => values[k] as string[] | undefined;
	const flag = (k: string) => values[k] as boolean | undefined;
	if (!!s('tls-cert') !== !!s('tls-key')) fail('--tls-cert and --tls-key go together');
	const retryParts = s('retry-schedule')
		?.split(',')
		.map((x) => x.trim())
		.filter((x) => x !== '');
	return {
		port: int('port', s('port')) ?? 8787,
		host: s('host') ?? '127.0.0.1',
		smtpPort: s('smtp-port') === 'off' ? undefined : (int('smtp-port', s('smtp-port')) ?? 2525),
		tls: s('tls-cert')
			? { cert: read('tls-cert', s('tls-cert')!), key: read('tls-key', s('tls-key')!) }
			: undefined,
		ca: list('ca')?.map((f) => read('ca', f)),
		tokens: list('token'),
		restrictedTokens: list('restricted-token'),
		adminToken: s('admin-token'),
		seed: int('seed', s('seed')),
		seedValue: int('seed-value', s('seed-value')),
		now: s('now'),
		timeZone: s('time-zone'),
		dstWallClock: oneOf('dst-wall-clock', s('dst-wall-clock'), [
			'zoneinfo',
			'earlier',
			'later',
			'refuse',
		] as const),
		pagination: oneOf('pagination', s('pagination'), ['page', 'cursor', 'none'] as const),
		mutationResponse: oneOf('mutation-response', s('mutation-response'), [
			'body',
			'empty',
		] as const),
		nextLinks: oneOf('next-links', s('next-links'), ['absolute', 'relative'] as const),
		nextOrigin: s('next-origin'),
		linkQueryOrder: oneOf('link-query-order', s('link-query-order'), [
			'request',
			'sorted',
		] as const),
		webhookList: oneOf('webhook-list', s('webhook-list'), ['paginated', 'array'] as const),
		pageSize: int('page-size', s('page-size'), 1),
		retrySchedule: retryParts?.map((p) => int('retry-schedule', p)!),
		deliveryTimeoutMs: int('delivery-timeout-ms', s('delivery-timeout-ms'), 1),
		deliveryConcurrency: int('delivery-concurrency', s('delivery-concurrency'), 1),
		duplicateDelivery: flag('duplicate-delivery'),
		shuffleDelivery: flag('shuffle-delivery'),
		shuffleWindowMs: int('shuffle-window-ms', s('shuffle-window-ms')),
		allowInsecureCallbacks: flag('allow-insecure-callbacks'),
		latencyMs: int('latency-ms', s('latency-ms')),
		repeatCancel: oneOf('repeat-cancel', s('repeat-cancel'), [
			'idempotent',
			'email-again',
			'not-found',
		] as const),
		takenSlot: oneOf('taken-slot', s('taken-slot'), ['allow', 'conflict', 'bad-request'] as const),
		slotMinutes: int('slot-minutes', s('slot-minutes'), 1),
		cancelRemoves: flag('cancel-removes'),
		readLagMs: int('read-lag-ms', s('read-lag-ms')),
	};
}

/** The lines scripts and tests read: the URL first, then the tokens, the dashboard and the mail sink. */
function announce(sb: Sandbox): void {
	const lines = [
		`SANDBOX_URL=${sb.url}`,
		...sb.tokens.map((t) => `SANDBOX_TOKEN=${t}`),
		...sb.restrictedTokens.map((t) => `SANDBOX_RESTRICTED_TOKEN=${t}`),
		`SANDBOX_ADMIN_TOKEN=${sb.adminToken}`,
		`SANDBOX_DASHBOARD=${sb.url}/dashboard/`,
		...(sb.smtpPort === undefined
			? []
			: [`SANDBOX_SMTP_PORT=${sb.smtpPort}`, `SANDBOX_MAILBOX=${sb.url}/dashboard/mailbox/`]),
	];
	process.stdout.write(`${lines.join('\n')}\n`);
	process.stderr.write(
		`sandbox: dashboard at ${sb.url}/dashboard/ (sign in with the admin token)\n`,
	);
}

/** SIGINT/SIGTERM: finish the deliveries in flight, say what they came to, exit. */
function stopOnSignals(sb: Sandbox): void {
	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		process.stderr.write(`sandbox: ${signal} received, finishing in-flight deliveries...\n`);
		sb.close().then(
			() => {
				const d = sb.deliveryStats();
				process.stderr.write(
					`sandbox: stopped; deliveries: ${d.succeeded} succeeded, ${d.gave_up} given up, ${d.attempts} attempts\n`,
				);
				process.exit(0);
			},
			(e) => {
				process.stderr.write(`sandbox: error while stopping: ${(e as Error).message}\n`);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

async function main() {
	const values = parseFlags();
	if (values.help) {
		process.stdout.write(HELP);
		return;
	}
	const options = toOptions(values);
	// Loaded once the flags are good: a refused flag or --help answers without loading the server.
	const { startSandbox } = await import('./index');
	let sb: Sandbox;
	try {
		sb = await startSandbox(options);
	} catch (e) {
		fail((e as Error).message);
	}
	announce(sb);
	stopOnSignals(sb);
}

void main();
