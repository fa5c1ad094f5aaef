/**
 * Part 5: the sandbox's own speed, so that parts 1-3 are known to measure the node and not the sandbox.
 *
 * - List requests per second: autocannon (child process) against GET /api/v3/appointments/ over the same 10,000
 *   appointments as part 1, default page size, with 1 connection (sequential, like the node's paging) and 10.
 *   The per-request time at 1 connection is compared with the node's per-page time of part 1 when known.
 * - Webhook deliveries per second: an https receiver on loopback (self-signed certificate the sandbox is told
 *   to trust), one subscription to appointment.updated, N status updates sent 10 at a time; time from the first
 *   update to the N-th delivery received.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import {
	ADMIN_TOKEN,
	API_TOKEN,
	Client,
	pollUntil,
	round,
	startBenchSandbox,
	type PartContext,
	type Row,
} from '../lib/common';
import { cannon } from '../lib/cannon';
import { selfSignedCert } from '../../scripts/cert';

export async function runSandboxPart(ctx: PartContext, nodeMsPerPage?: number): Promise<Row[]> {
	return [...(await listRows(ctx, nodeMsPerPage)), await deliveriesRow(ctx)];
}

/** List requests per second with 1 and 10 connections. */
async function listRows(ctx: PartContext, nodeMsPerPage: number | undefined): Promise<Row[]> {
	const total = ctx.smoke ? 600 : 10000;
	const duration = ctx.smoke ? 1 : 5;
	const rows: Row[] = [];
	const sb = await startBenchSandbox({ seed: total });
	try {
		for (const connections of [1, 10]) {
			const r = await cannon({
				url: `${sb.url}/api/v3/appointments/`,
				connections,
				durationSec: duration,
				headers: { authorization: `Bearer ${API_TOKEN}`, accept: 'application/json' },
			});
			if (r.non2xx || r.errors)
				throw new Error(`list under load: ${r.non2xx} non-2xx, ${r.errors} errors`);
			ctx.log(
				`part 5: list ${connections} connection(s): ${r.requestsPerSec.toFixed(0)} req/s, median ${r.latencyMedianMs} ms`,
			);
			const perRequestMs = 1000 / r.requestsPerSec;
			const row: Row = {
				part: 5,
				name: `Sandbox list, ${total} appointments, default page, ${connections} connection${connections > 1 ? 's' : ''} (autocannon ${duration} s)`,
				value: round(r.requestsPerSec, 0),
				unit: 'req/s',
				details: { ...r, perRequestMs: round(perRequestMs, 3) },
			};
			if (connections === 1 && nodeMsPerPage) {
				// How much of the node's time per page of part 1 is the sandbox answering.
				row.baseline = round(1000 / nodeMsPerPage, 0);
				row.ratio = round(r.requestsPerSec / (1000 / nodeMsPerPage), 2);
				row.details!.note =
					'baseline = pages per second the node fetched in part 1 (default page size); ratio = sandbox capacity / node page rate';
			}
			rows.push(row);
		}
	} finally {
		await sb.close();
	}
	return rows;
}

/** An https receiver on loopback that counts what arrives and when the last delivery did. */
async function startReceiver(cert: { key: string; cert: string }) {
	const got = { received: new Set<string>(), count: 0, lastAt: 0 };
	const server = https.createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
		let body = '';
		req.setEncoding('utf8');
		req.on('data', (d) => (body += d));
		req.on('end', () => {
			try {
				const e = JSON.parse(body);
				got.received.add(`${e.event}|${e.data?.appointment_key}|${e.timestamp}`);
			} catch {
				/* counted below anyway */
			}
			got.count++;
			got.lastAt = performance.now();
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{"ok":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	const close = async () => {
		server.closeAllConnections();
		await new Promise((resolve) => server.close(resolve));
	};
	return { got, port, close };
}

/** Webhook deliveries per second to a local https receiver. */
async function deliveriesRow(ctx: PartContext): Promise<Row> {
	const n = ctx.smoke ? 50 : 1000;
	const pems = selfSignedCert({ days: 2 });
	const receiver = await startReceiver(pems);
	const { got } = receiver;
	const sb = await startBenchSandbox({
		seed: n * 2,
		ca: pems.cert,
		retrySchedule: [100, 200],
		deliveryTimeoutMs: 5000,
	});
	const api = new Client(sb.url, API_TOKEN);
	const admin = new Client(sb.url, ADMIN_TOKEN);
	const agent = new Agent({ keepAliveTimeout: 30000, connections: 10 });
	try {
		await api.ok('POST', '/api/v3/webhooks/', {
			url: `https://localhost:${receiver.port}/hook`,
			events: ['appointment.updated'],
		});
		const keys = await changeableKeys(api, n);
		const t0 = performance.now();
		const patchedAt = await sendUpdates(sb.url, agent, keys);
		try {
			await pollUntil(
				`${n} deliveries at the receiver`,
				() => (got.count >= n ? true : undefined),
				ctx.smoke ? 20000 : 60000,
				5,
			);
		} catch (error) {
			const d = await admin.ok('GET', '/__sandbox/deliveries/');
			const errors = (d.deliveries as Array<{ ok: boolean; error: string | null }>)
				.filter((x) => !x.ok)
				.slice(0, 3)
				.map((x) => x.error);
			throw new Error(
				`${(error as Error).message}: ${got.count} received, sandbox pending ${d.pending}, first errors ${JSON.stringify(errors)}`,
			);
		}
		const ms = got.lastAt - t0;
		const deliveries = await admin.ok('GET', '/__sandbox/deliveries/');
		const failed = (deliveries.deliveries as Array<{ ok: boolean }>).filter((d) => !d.ok).length;
		ctx.log(
			`part 5: ${n} deliveries in ${ms.toFixed(0)} ms (${((n / ms) * 1000).toFixed(0)}/s), ${failed} failed attempts`,
		);
		return {
			part: 5,
			name: `Sandbox webhook deliveries to a local https receiver (${n} status updates, 10 at a time)`,
			value: round((n / ms) * 1000, 0),
			unit: 'deliveries/s',
			details: {
				events: n,
				distinctReceived: got.received.size,
				receivedRequests: got.count,
				failedAttempts: failed,
				updatesSentPerSec: round((n / (patchedAt - t0)) * 1000, 0),
				msFirstUpdateToLastDelivery: round(ms, 1),
			},
		};
	} finally {
		await agent.close();
		await api.close();
		await admin.close();
		await sb.close();
		await receiver.close();
	}
}

/** n appointments whose status a PATCH to ATTENDED really changes (only a real change emits appointment.updated). */
async function changeableKeys(api: Client, n: number): Promise<string[]> {
	const keys: string[] = [];
	let next: string | undefined = '/api/v3/appointments/?page_size=500';
	while (next && keys.length < n) {
		const page = await api.ok('GET', next);
		for (const r of page.results as Array<{ appointment_key: string; status: string }>) {
			if (!r.status.startsWith('CANCELED') && r.status !== 'ATTENDED') keys.push(r.appointment_key);
		}
		next = page.next ?? undefined;
	}
	if (keys.length < n) throw new Error(`only ${keys.length} updatable appointments`);
	return keys.slice(0, n);
}

/** PATCHes every key to ATTENDED, 10 at a time; returns when the last answer arrived. */
async function sendUpdates(baseUrl: string, agent: Agent, keys: string[]): Promise<number> {
	let i = 0;
	let patchedAt = 0;
	await Promise.all(
		Array.from({ length: 10 }, async () => {
			while (i < keys.length) {
				const key = keys[i++];
				const res = await request(`${baseUrl}/api/v3/appointments/${key}/`, {
					method: 'PATCH',
					dispatcher: agent,
					headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json' },
					body: JSON.stringify({ status: 'ATTENDED' }),
				});
				await res.body.text();
				if (res.statusCode >= 300) throw new Error(`PATCH answered ${res.statusCode}`);
			}
			patchedAt = performance.now();
		}),
	);
	return patchedAt;
}
