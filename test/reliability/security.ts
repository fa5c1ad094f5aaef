/* eslint-disable @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-explicit-any -- test code, never shipped: it starts servers and handles arbitrary JSON from run data */
/**
 * What the security test files share: the sandbox they start (its webhook deliveries trust the trigger harness's
 * receiver), and a node runner that keeps every text a run shows and every token it used, so a test can look for a
 * leak across all the runs of its file.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode, type RunNodeResult } from '../helpers/n8n';
import { receiverCa } from '../helpers/trigger';
import { TestSandbox, TOKEN, visibleTexts } from './common';

export function startSecuritySandbox(): Promise<TestSandbox> {
	return TestSandbox.start({ seed: 40, seedValue: 5, ca: receiverCa() });
}

export function nodeRunner(sandbox: () => TestSandbox) {
	const secrets = new Set<string>([TOKEN]);
	const seen: string[] = [];
	async function run(
		parameters: Record<string, unknown>,
		opts: {
			token?: string;
			continueOnFail?: boolean;
			input?: any[];
			nodeTypeVersion?: number;
			on?: TestSandbox;
		} = {},
	): Promise<RunNodeResult> {
		const token = opts.token ?? TOKEN;
		secrets.add(token);
		const result = await runNode({
			parameters: parameters as IDataObject,
			credentials: { baseUrl: (opts.on ?? sandbox()).url, accessToken: token },
			continueOnFail: opts.continueOnFail,
			input: opts.input,
			nodeTypeVersion: opts.nodeTypeVersion,
		});
		seen.push(...visibleTexts(result));
		return result;
	}
	return { secrets, seen, run };
}
