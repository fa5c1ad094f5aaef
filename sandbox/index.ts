/**
 * The sandbox: a local stand-in of the scheduling service (API, webhook delivery, fault injection).
 * Not part of the published package; the nodes never import it. See sandbox/README.md.
 *
 *   const sb = await startSandbox({ port: 0, tokens: ['t'], adminToken: 'a' });
 *   sb.url // 'http://127.0.0.1:PORT' (no trailing slash)
 *   await sb.close();
 */
import type { AddressInfo } from 'node:net';

import type { DeliveryCounters } from './deliveries';
import { startMailSink, type MailSink } from './mailbox';
import type { SandboxOptions } from './options';
import { buildServer } from './server';

export type { MailMessage } from './mailbox';
export type {
	SandboxOptions,
	RuntimeConfig,
	Pagination,
	MutationResponse,
	NextLinks,
	WebhookList,
	RepeatCancel,
} from './options';
export { STATUSES, CANCELLED_STATUSES } from './vocabulary';
export { LIST_FILTERS } from './listFilter';
export { EVENTS, TRANSITIONS, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_JSON_DEPTH } from './server';

export interface Sandbox {
	/** Base URL without trailing slash, e.g. http://127.0.0.1:8787 (the credential's base URL). */
	url: string;
	port: number;
	/** Full-access API tokens (generated when not given). */
	tokens: string[];
	restrictedTokens: string[];
	adminToken: string;
	/** Port of the local mail sink (SMTP on the same host), when `smtpPort` was given. */
	smtpPort: number | undefined;
	/** The delivery counters (also after close: what the shutdown finished). */
	deliveryStats(): DeliveryCounters;
	/**
	 * Stops accepting requests, lets delivery attempts in flight finish (bounded by the delivery time-out) and
	 * records queued or scheduled deliveries as given up. Safe to call twice.
	 */
	close(): Promise<void>;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const { app, state } = await buildServer(options);
	const { startTokens: tokens, startRestricted: restrictedTokens, adminToken } = state;
	const host = options.host ?? '127.0.0.1';
	await app.listen({ port: options.port ?? 0, host });
	const port = (app.server.address() as AddressInfo).port;
	const shownHost =
		host === '0.0.0.0' || host === '::' || host === ''
			? '127.0.0.1'
			: host.includes(':')
				? `[${host}]`
				: host;
	const url = `${options.tls ? 'https' : 'http'}://${shownHost}:${port}`;
	let sink: MailSink | undefined;
	if (options.smtpPort !== undefined) {
		try {
			sink = await startMailSink(state.mailbox, host, options.smtpPort);
			state.smtpHost = shownHost;
			state.smtpPort = sink.port;
		} catch (e) {
			await app.close();
			await state.deliveries.close();
			throw new Error(
				`Cannot start the mail sink on ${host}:${options.smtpPort}: ${(e as Error).message}`,
			);
		}
	}
	let closing: Promise<void> | undefined;
	return {
		url,
		port,
		tokens,
		restrictedTokens,
		adminToken,
		smtpPort: sink?.port,
		deliveryStats: () => state.deliveries.stats(),
		close() {
			closing ??= (async () => {
				const stopped = app.close();
				const sinkStopped = sink?.close();
				await state.deliveries.close();
				await stopped;
				await sinkStopped;
			})();
			return closing;
		},
	};
}
