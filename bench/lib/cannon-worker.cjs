/*
 * Child process of bench/lib/cannon.ts: reads options as JSON on stdin, runs autocannon, prints one JSON line.
 * With `envelopes: true` every request carries a distinct notification envelope (fresh appointment_key and
 * timestamp) built in setupRequest.
 */
'use strict';
const crypto = require('node:crypto');
const autocannon = require('autocannon');

let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
	const o = JSON.parse(input);
	const envelope = () =>
		JSON.stringify({
			event: 'appointment.updated',
			timestamp: new Date().toISOString().replace('Z', '+00:00'),
			data: {
				appointment_key: crypto.randomUUID(),
				search_code: 'BENCH-' + crypto.randomBytes(3).toString('hex').toUpperCase(),
				status: 'CONFIRMED',
				start_date: '2026-11-24T10:00:00-03:00',
				calendar: { calendar_key: '7f1e4c1a-3b5d-4e2f-9a6b-1c2d3e4f5a6b', name: 'Dr. Bench' },
				person: { full_name: 'Ada Bench', email: 'ada.bench@example.com' },
			},
		});
	const opts = {
		url: o.url,
		connections: o.connections,
		duration: o.durationSec,
		method: o.method || 'GET',
		headers: o.headers || {},
		body: o.body,
	};
	if (o.envelopes) {
		opts.method = 'POST';
		opts.headers = { 'content-type': 'application/json', ...opts.headers };
		opts.requests = [{ method: 'POST', setupRequest: (req) => ({ ...req, body: envelope() }) }];
	}
	autocannon(opts, (err, r) => {
		if (err) {
			process.stderr.write(String(err && err.stack ? err.stack : err) + '\n');
			process.exit(1);
		}
		const codes = {};
		for (const [k, v] of Object.entries(r)) if (/^\d\xx$/.test(k)) codes[k] = v;
		process.stdout.write(
			JSON.stringify({
				requestsPerSec: r.duration > 0 ? r['2xx'] / r.duration : 0,
				durationSec: r.duration,
				requestsTotal: r.requests.total,
				non2xx: r.non2xx,
				errors: r.errors,
				timeouts: r.timeouts,
				latencyMedianMs: r.latency.p50,
				latencyP99Ms: r.latency.p99,
				statusCodes: codes,
			}) + '\n',
		);
	});
});
