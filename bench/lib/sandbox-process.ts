/**
 * Child-process entry: starts the sandbox with the options given as JSON in argv[2], prints
 * `SANDBOX_URL=<url>` and runs until SIGTERM/SIGINT or until its parent goes away (stdin closes).
 * Used by startSandboxProcess() so that the service under test has a core of its own, as a real service would.
 */
import { requireProjectFile } from './common';

async function main(): Promise<void> {
	const options = JSON.parse(process.argv[2] ?? '{}') as Record<string, unknown>;
	const mod = requireProjectFile<{
		startSandbox: (o: Record<string, unknown>) => Promise<{ url: string; close(): Promise<void> }>;
	}>('sandbox', 'The sandbox');
	const sb = await mod.startSandbox(options);
	process.stdout.write(`SANDBOX_URL=${sb.url}\n`);
	const stop = async () => {
		await sb.close().catch(() => undefined);
		process.exit(0);
	};
	process.once('SIGTERM', stop);
	process.once('SIGINT', stop);
	process.stdin.on('end', stop);
	process.stdin.resume();
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack ?? error}\n`);
	process.exit(1);
});
