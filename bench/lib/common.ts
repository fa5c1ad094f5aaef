/**
 * Shared pieces of the benchmarks: the result row every part returns, statistics, timing, an undici client for
 * the sandbox's admin endpoints, and a loader for the pieces other parts of the project build (sandbox, nodes),
 * so that a missing piece fails with a message naming it instead of a module-resolution stack.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Agent, request, type Dispatcher } from 'undici';

export const ROOT = path.resolve(__dirname, '..', '..');
export const RESULTS_DIR = path.join(ROOT, 'bench', 'results');

export interface Row {
	/** Part number 1..6 and the figure's name. */
	part: number;
	name: string;
	/** The measured figure and the baseline measured in the same run (numbers in `unit`). */
	value: number | string;
	baseline?: number | string;
	unit: string;
	/** value / baseline (or the quantity the target is written for; see `target`). */
	ratio?: number | string;
	/** How the ratio varied over the rounds it is the median of (rounds.ts spreadOf). */
	spread?: string;
	/** Human-readable target, e.g. "<= 1.15"; undefined for figures reported for context only. */
	target?: string;
	/** true/false when the row has a target; undefined for context rows. */
	met?: boolean;
	/** Why a row has no result (e.g. a figure that could not be measured). Printed under the table. */
	note?: string;
	/** How it was measured and the raw samples. */
	details?: Record<string, unknown>;
}

export interface PartContext {
	smoke: boolean;
	log: (message: string) => void;
}

export function median(values: number[]): number {
	if (values.length === 0) return NaN;
	const s = [...values].sort((a, b) => a - b);
	const mid = Math.floor(s.length / 2);
	return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function round(value: number, digits = 2): number {
	const f = 10 ** digits;
	return Math.round(value * f) / f;
}

export function now(): number {
	return performance.now();
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
	const start = performance.now();
	const result = await fn();
	return { ms: performance.now() - start, result };
}

/** Waits until `check` returns a value other than undefined, polling; fails after `timeoutMs`. */
export async function pollUntil<T>(
	what: string,
	check: () => Promise<T | undefined> | T | undefined,
	timeoutMs = 30000,
	intervalMs = 20,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let last: unknown;
	for (;;) {
		try {
			const value = await check();
			if (value !== undefined) return value;
		} catch (error) {
			last = error;
		}
		if (Date.now() > deadline) {
			throw new Error(
				`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
			);
		}
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}

/** Requires a project file another helper builds, with a clear error when it is not there yet. */
export function requireProjectFile<T>(relative: string, what: string): T {
	const base = path.join(ROOT, relative);
	// Explicit extensions: `X.node` would otherwise resolve to the codex file `X.node.json` before `X.node.ts`.
	const candidates = [`${base}.ts`, path.join(base, 'index.ts'), `${base}.js`, base];
	const found = candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
	if (!found) throw new Error(`${what} is not available: ${relative} does not exist (yet)`);
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(found) as T;
}

// ---------------------------------------------------------------------------------------------------------
// Sandbox

export const API_TOKEN = 'bench-token';
export const ADMIN_TOKEN = 'bench-admin-token';

export interface Sandbox {
	url: string;
	close(): Promise<void>;
}

export type SandboxOptions = Record<string, unknown>;

export async function startBenchSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const mod = requireProjectFile<{ startSandbox: (o: SandboxOptions) => Promise<Sandbox> }>(
		'sandbox',
		'The sandbox',
	);
	return await mod.startSandbox({
		port: 0,
		host: '127.0.0.1',
		tokens: [API_TOKEN],
		adminToken: ADMIN_TOKEN,
		seedValue: 1,
		...options,
	});
}

/**
 * The sandbox in a child process of its own (Node 24 + tsx), so that on this 2-core machine the service and the
 * client under test do not share one event loop, as they would not in production.
 */
export async function startSandboxProcess(options: SandboxOptions = {}): Promise<Sandbox> {
	const { spawn } = await import('node:child_process');
	const all = {
		port: 0,
		host: '127.0.0.1',
		tokens: [API_TOKEN],
		adminToken: ADMIN_TOKEN,
		seedValue: 1,
		...options,
	};
	const child = spawn(
		process.execPath,
		['--import', 'tsx', path.join(ROOT, 'bench', 'lib', 'sandbox-process.ts'), JSON.stringify(all)],
		{
			cwd: ROOT,
			env: { ...process.env, NODE_OPTIONS: '' },
			stdio: ['pipe', 'pipe', 'inherit'],
		},
	);
	const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
	const url = await new Promise<string>((resolve, reject) => {
		let out = '';
		const timer = setTimeout(
			() => reject(new Error('the sandbox process printed no SANDBOX_URL within 60 s')),
			60000,
		);
		child.stdout!.on('data', (d) => {
			out += d;
			const m = /SANDBOX_URL=(\S+)/.exec(out);
			if (m) {
				clearTimeout(timer);
				resolve(m[1]);
			}
		});
		void exited.then((code) => {
			clearTimeout(timer);
			reject(new Error(`the sandbox process exited with code ${code} before it was ready`));
		});
	});
	return {
		url,
		async close() {
			child.kill('SIGTERM');
			const t = setTimeout(() => child.kill('SIGKILL'), 5000);
			await exited;
			clearTimeout(t);
		},
	};
}

/** A small JSON client over undici (keep-alive) for the sandbox's API and admin endpoints. */
export class Client {
	readonly dispatcher: Dispatcher;
	constructor(
		readonly baseUrl: string,
		readonly token: string,
		connect: Record<string, unknown> = {},
	) {
		this.dispatcher = new Agent({ connect, keepAliveTimeout: 30000 });
	}

	async call(
		method: Dispatcher.HttpMethod,
		pathOrUrl: string,
		body?: unknown,
	): Promise<{ status: number; body: any }> {
		const url = /^https?:/.test(pathOrUrl) ? pathOrUrl : this.baseUrl + pathOrUrl;
		const res = await request(url, {
			method,
			dispatcher: this.dispatcher,
			headers: {
				authorization: `Bearer ${this.token}`,
				accept: 'application/json',
				...(body !== undefined ? { 'content-type': 'application/json' } : {}),
			},
			body: body !== undefined ? JSON.stringify(body) : undefined,
		});
		const text = await res.body.text();
		let parsed: unknown = undefined;
		if (text) {
			try {
				parsed = JSON.parse(text);
			} catch {
				parsed = text;
			}
		}
		return { status: res.statusCode, body: parsed };
	}

	async ok(method: Dispatcher.HttpMethod, pathOrUrl: string, body?: unknown): Promise<any> {
		const r = await this.call(method, pathOrUrl, body);
		if (r.status < 200 || r.status >= 300) {
			throw new Error(
				`${method} ${pathOrUrl} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`,
			);
		}
		return r.body;
	}

	async close(): Promise<void> {
		await this.dispatcher.close();
	}
}

export interface RecordedRequest {
	method: string;
	path: string;
	query?: unknown;
	status: number;
	at?: string;
	authorized?: boolean;
}

export async function sandboxRequests(admin: Client): Promise<RecordedRequest[]> {
	const b = await admin.ok('GET', '/__sandbox/requests/');
	return (Array.isArray(b) ? b : b.requests) as RecordedRequest[];
}

export async function clearSandboxRequests(admin: Client): Promise<void> {
	await admin.ok('DELETE', '/__sandbox/requests/');
}

/** Renders a recorded request's query as a stable string, whatever shape the sandbox logs it in. */
export function queryString(query: unknown): string {
	if (query === undefined || query === null) return '';
	if (typeof query === 'string') return query.replace(/^\?/, '');
	const params = new URLSearchParams();
	for (const [k, v] of Object.entries(query as Record<string, unknown>)) {
		for (const one of Array.isArray(v) ? v : [v]) params.append(k, String(one));
	}
	params.sort();
	return params.toString();
}

// ---------------------------------------------------------------------------------------------------------
// Formatting

export function fmt(value: number | string | undefined, unit = ''): string {
	if (value === undefined) return '';
	if (typeof value === 'string') return value;
	if (!Number.isFinite(value)) return String(value);
	const abs = Math.abs(value);
	const text = Number.isInteger(value)
		? value.toLocaleString('en-US')
		: abs >= 1000
			? Math.round(value).toLocaleString('en-US')
			: abs >= 100
				? value.toFixed(0)
				: abs >= 10
					? value.toFixed(1)
					: value.toFixed(2);
	return unit ? `${text} ${unit}` : text;
}
