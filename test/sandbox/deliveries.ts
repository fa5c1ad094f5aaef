/**
 * What the webhook delivery test files share: a sandbox that trusts a self-signed CA and retries after 50 and 100 ms,
 * reset before each test; https receivers closed after the file; shortcuts to subscribe, create and read the log.
 */
import {
	ADMIN,
	TOKEN,
	client,
	pollUntil,
	receiver,
	selfSigned,
	start,
	type Sandbox,
} from './helpers';

// a live binding: set in beforeAll, read by the tests of the file that called useDeliverySandbox
export let sb: Sandbox;
export const api = client(() => sb.url, TOKEN);
export const adm = client(() => sb.url, ADMIN);
export type Receiver = Awaited<ReturnType<typeof receiver>>;
export const receivers: Receiver[] = [];

export function deferred() {
	let resolve!: () => void;
	const promise = new Promise<void>((r) => (resolve = r));
	return { promise, resolve };
}

export async function recv(answer?: Parameters<typeof receiver>[0]) {
	const r = await receiver(answer);
	receivers.push(r);
	return r;
}
export async function subscribe(
	url: string,
	events = ['appointment.created', 'appointment.updated', 'appointment.canceled'],
) {
	return api.ok('POST', '/api/v3/webhooks/', { url, events });
}
export const deliveries = () => adm.ok('GET', '/__sandbox/deliveries/');
/** Waits until nothing is pending and `cond` holds for the log. */
export const settled = (cond: (d: any) => boolean = () => true, timeoutMs = 10000) =>
	pollUntil(
		'deliveries to settle',
		async () => {
			const d = await deliveries();
			return d.pending === 0 && cond(d) ? d : undefined;
		},
		timeoutMs,
	);
export const create = (body: Record<string, unknown> = {}) =>
	adm.ok('POST', '/__sandbox/appointments/', { status: 'CONFIRMED', ...body });

/** Starts the sandbox for the calling test file, resets it before each test and closes it and the receivers after. */
export function useDeliverySandbox(): void {
	beforeAll(async () => {
		selfSigned();
		sb = await start({ seed: 30, ca: selfSigned().cert, retrySchedule: [50, 100] });
	});
	afterAll(async () => {
		await sb?.close();
		await Promise.all(receivers.map((r) => r.close()));
	});
	beforeEach(() => adm.ok('POST', '/__sandbox/reset/'));
}
