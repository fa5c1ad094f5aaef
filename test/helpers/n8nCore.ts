/**
 * n8n-workflow and n8n-core loaded for tests, with `N8N_USER_FOLDER` pointed at a temp dir first (n8n-core reads it
 * at import time), and a capturing logger behind n8n's LoggerProxy and n8n-core's DI Logger.
 *
 *   capturedLogs(): string[]    every line the loggers received since the process started (all runs)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = mkdtempSync(join(tmpdir(), 'n8n-appointments-test-'));
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const workflowLib = require('n8n-workflow') as typeof import('n8n-workflow');
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const core = require('n8n-core') as typeof import('n8n-core');

const logs: string[] = [];

function captureLine(level: string, message: string, metadata?: unknown): void {
	let meta = '';
	if (metadata !== undefined) {
		try {
			meta =
				' ' +
				JSON.stringify(metadata, (_k, v) =>
					v instanceof Error ? { ...v, message: v.message, stack: v.stack } : v,
				);
		} catch {
			meta = ' ' + String(metadata);
		}
	}
	logs.push(`[${level}] ${message}${meta}`);
}

workflowLib.LoggerProxy.init({
	error: (m: string, meta?: unknown) => captureLine('error', m, meta),
	warn: (m: string, meta?: unknown) => captureLine('warn', m, meta),
	info: (m: string, meta?: unknown) => captureLine('info', m, meta),
	debug: (m: string, meta?: unknown) => captureLine('debug', m, meta),
} as never);

// n8n-core's execution contexts log through the DI container's Logger (ctx.logger), not LoggerProxy: capture it too.
{
	const fromCore = (id: string) =>
		require(require.resolve(id, { paths: [require.resolve('n8n-core')] }));
	const { Container } = fromCore('@n8n/di') as {
		Container: { set: (token: unknown, value: unknown) => void };
	};
	const { Logger } = fromCore('@n8n/backend-common') as { Logger: unknown };
	const capturing: Record<string, unknown> = {
		error: (m: string, meta?: unknown) => captureLine('error', m, meta),
		warn: (m: string, meta?: unknown) => captureLine('warn', m, meta),
		info: (m: string, meta?: unknown) => captureLine('info', m, meta),
		debug: (m: string, meta?: unknown) => captureLine('debug', m, meta),
	};
	capturing.scoped = () => capturing;
	Container.set(Logger, capturing);
}

export function capturedLogs(): string[] {
	return [...logs];
}

/** How many lines were captured so far: where a run's own lines start (see logsSince). */
export function logCount(): number {
	return logs.length;
}

export function logsSince(start: number): string[] {
	return logs.slice(start);
}
