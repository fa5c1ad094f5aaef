/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- test code, never shipped: made-up keys */
/**
 * A small appointment service on loopback (fakeService.ts) for the polling trigger's tests, for what the sandbox
 * cannot show: appointments that disappear (404), statuses the spec does not name, a list that leaves out cancelled
 * appointments or ignores the date filters, and answers that are not appointments.
 *
 *   const s = await startPollingService({ zone, pageSize?, hidesCancelled?, ignoresDates? })
 *   s.records            the appointments by key (change them between polls)
 *   s.add(key, start, status?)   s.set(key, { status?, start? })   s.remove(key)
 *   (a record may be given is_cancelled, another calendar, or a status or start_date that cannot be read)
 *   s.fault = { on: 'list' | 'read', answer, times? }   the next `times` (default: every) matching answers are this
 *   s.served             how many faulty answers were served since the last reset
 *   s.requests           "GET /api/v3/appointments/?…" lines
 *
 * Lists: `{ results, next }` by page number, records ordered by start; date filters read as wall-clock time in
 * `zone` (inclusive), as the sandbox reads them.
 */
import { DateTime } from 'luxon';

import { sendJson, startFakeService, type FakeService } from './fakeService';

export interface FakeAppointment {
	appointment_key: string;
	search_code: string;
	status: string;
	start_date: string;
	is_cancelled?: boolean;
	calendar: { calendar_key: string; name: string };
	person: { full_name: string; email: string };
}

/** A failed or malformed answer: 503, an HTML page or an empty body with 200, a JSON object that is no appointment. */
export type FaultyAnswer = '503' | 'html' | 'empty' | 'notRecord' | 'otherKey';

export interface PollingServiceOptions {
	zone: string;
	pageSize?: number;
	hidesCancelled?: boolean;
	ignoresDates?: boolean;
}

export interface PollingService {
	readonly url: string;
	readonly records: Map<string, FakeAppointment>;
	readonly requests: string[];
	fault?: { on: 'list' | 'read'; answer: FaultyAnswer; times?: number };
	served: number;
	options: PollingServiceOptions;
	add(key: string, start: number, status?: string): FakeAppointment;
	set(key: string, change: { status?: string; start?: number }): void;
	remove(key: string): void;
	close(): Promise<void>;
}

export const POLLING_SERVICE_TOKEN = 'polling-service-token';
export const CALENDAR = { calendar_key: '5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d', name: 'Box 1' };

const isCancelledStatus = (status: unknown) => /^CANCEL/i.test(String(status));

function faulty(
	res: Parameters<FakeService['handle']>[1],
	answer: FaultyAnswer,
	on: 'list' | 'read',
): void {
	if (answer === '503') return void res.writeHead(503, { 'retry-after': '0' }).end();
	if (answer === 'html')
		return void res
			.writeHead(200, { 'content-type': 'text/html' })
			.end('<!doctype html><p>Sign in</p>');
	if (answer === 'empty') return void res.writeHead(200).end();
	const other = {
		appointment_key: 'someone-else',
		search_code: 'X',
		status: 'CONFIRMED',
		start_date: '2030-01-01T10:00:00Z',
	};
	const body = answer === 'notRecord' ? { detail: 'ok' } : other;
	sendJson(res, 200, on === 'list' ? { results: [body], next: null } : body);
}

export async function startPollingService(options: PollingServiceOptions): Promise<PollingService> {
	const fake = await startFakeService();
	const records = new Map<string, FakeAppointment>();
	const requests: string[] = [];
	const service: PollingService = {
		url: fake.url,
		records,
		requests,
		served: 0,
		options,
		add(key, start, status = 'CONFIRMED') {
			const record: FakeAppointment = {
				appointment_key: key,
				search_code: key.toUpperCase().slice(0, 8),
				status,
				start_date: DateTime.fromMillis(start, { zone: options.zone }).toISO({
					suppressMilliseconds: true,
				})!,
				calendar: { ...CALENDAR },
				person: { full_name: `Client ${key}`, email: `${key}@example.com` },
			};
			records.set(key, record);
			return record;
		},
		set(key, change) {
			const record = records.get(key)!;
			if (change.status !== undefined) record.status = change.status;
			if (change.start !== undefined) {
				record.start_date = DateTime.fromMillis(change.start, { zone: options.zone }).toISO({
					suppressMilliseconds: true,
				})!;
			}
		},
		remove: (key) => void records.delete(key),
		close: () => fake.close(),
	};
	const takeFault = (on: 'list' | 'read') => {
		const f = service.fault;
		if (f === undefined || f.on !== on) return undefined;
		if (f.times !== undefined && --f.times <= 0) service.fault = undefined;
		service.served++;
		return f.answer;
	};
	fake.handle = (req, res) => {
		requests.push(`${req.method} ${req.path}${req.query}`);
		if (req.authorization !== `Bearer ${POLLING_SERVICE_TOKEN}`)
			return sendJson(res, 401, { detail: 'Invalid token.' });
		if (req.path === '/api/v3/appointments/') {
			const answer = takeFault('list');
			if (answer !== undefined) return faulty(res, answer, 'list');
			return sendJson(res, 200, listPage(service, new URLSearchParams(req.query)));
		}
		const key = /^\/api\/v3\/appointments\/([^/]+)\/$/.exec(req.path)?.[1];
		if (req.method !== 'GET' || key === undefined)
			return sendJson(res, 405, { detail: 'Method not allowed.' });
		const answer = takeFault('read');
		if (answer !== undefined) return faulty(res, answer, 'read');
		const found = records.get(decodeURIComponent(key));
		return found ? sendJson(res, 200, found) : sendJson(res, 404, { detail: 'Not found.' });
	};
	return service;
}

function listPage(
	service: PollingService,
	query: URLSearchParams,
): { results: FakeAppointment[]; next: string | null } {
	const { zone, pageSize = 50, hidesCancelled = false, ignoresDates = false } = service.options;
	const bound = (name: string) => {
		const text = query.get(name);
		return ignoresDates || text === null ? undefined : DateTime.fromISO(text, { zone }).toMillis();
	};
	const from = bound('start_date');
	const to = bound('end_date');
	const all = [...service.records.values()]
		.filter((a) => !(hidesCancelled && (isCancelledStatus(a.status) || a.is_cancelled === true)))
		.filter(
			(a) =>
				(from === undefined || Date.parse(a.start_date) >= from) &&
				(to === undefined || Date.parse(a.start_date) <= to),
		)
		.sort(
			(a, b) =>
				Date.parse(a.start_date) - Date.parse(b.start_date) ||
				a.appointment_key.localeCompare(b.appointment_key),
		);
	const page = Number(query.get('page') ?? '1');
	const results = all.slice((page - 1) * pageSize, page * pageSize);
	if (page * pageSize >= all.length) return { results, next: null };
	const next = new URLSearchParams(query);
	next.set('page', String(page + 1));
	return { results, next: `${service.url}/api/v3/appointments/?${next}` };
}
