/** API: /api/v3/appointments/ (list with the 17 filters and three pagination styles, retrieve, status, reschedule, cancel). */
import type { FastifyInstance, FastifyRequest } from 'fastify';

import {
	NOT_FOUND,
	appointmentParam,
	detail,
	fieldErrors,
	pageLink,
	pageParams,
	readJsonObject,
	splitUrl,
	type Result,
} from '../routeHelpers';
import { cancel, changeStatus, reschedule } from '../operations';
import type { SandboxState } from '../sandboxState';
import { parseBoolean, parseListFilter, type ListFilter } from '../listFilter';

interface CursorPos {
	d: 'n' | 'p';
	s: number;
	k: string;
}
const encodeCursor = (c: CursorPos) => Buffer.from(JSON.stringify(c)).toString('base64url');
function decodeCursor(text: string): CursorPos | undefined {
	try {
		const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
		if ((c?.d === 'n' || c?.d === 'p') && Number.isFinite(c.s) && typeof c.k === 'string')
			return c as CursorPos;
	} catch {
		/* invalid */
	}
	return undefined;
}

function listResponse(
	s: SandboxState,
	req: FastifyRequest,
	path: string,
	q: URLSearchParams,
	filter: ListFilter,
): Result {
	const { cfg, store } = s;
	if (cfg.pagination === 'none') {
		const { items } = store.page(filter, 0, Infinity);
		return { status: 200, raw: `{"results":[${items.join(',')}]}` };
	}
	const pp = pageParams(q, cfg.pageSize);
	if (pp.errors?.page_size) return fieldErrors({ page_size: pp.errors.page_size });
	if (pp.errors && cfg.pagination === 'page') return fieldErrors(pp.errors);
	const size = pp.size;
	if (cfg.pagination === 'page') {
		const page = pp.page;
		const { count, items } = store.page(filter, (page - 1) * size, size);
		const pages = Math.max(1, Math.ceil(count / size));
		if (page > pages) return detail(404, 'Invalid page.');
		const next =
			page < pages ? JSON.stringify(pageLink(s, req, path, q, { page: String(page + 1) })) : 'null';
		const previous =
			page > 1
				? JSON.stringify(
						pageLink(s, req, path, q, { page: page === 2 ? undefined : String(page - 1) }),
					)
				: 'null';
		return {
			status: 200,
			raw: `{"count":${count},"next":${next},"previous":${previous},"results":[${items.join(',')}]}`,
		};
	}
	// cursor: keyset on (start, appointment_key); the cursor is opaque base64url JSON.
	const c = q.get('cursor');
	let from = 0;
	let to: number | undefined;
	if (c !== null && c !== '') {
		const pos = decodeCursor(c);
		if (!pos)
			return fieldErrors({
				cursor: [
					`"${c.slice(0, 200)}" is not a valid cursor: use the "next" or "previous" link as given.`,
				],
			});
		if (pos.d === 'n') from = store.positionAfter(filter, pos.s, pos.k, true);
		else {
			to = store.positionAfter(filter, pos.s, pos.k, false);
			from = Math.max(0, to - size);
		}
	}
	const { count, items, first, last } = store.page(
		filter,
		from,
		to === undefined ? size : to - from,
	);
	const end = from + items.length;
	const next =
		end < count && last
			? JSON.stringify(
					pageLink(s, req, path, q, {
						cursor: encodeCursor({ d: 'n', s: last.start, k: last.appointment_key }),
					}),
				)
			: 'null';
	const previous =
		from > 0 && first
			? JSON.stringify(
					pageLink(s, req, path, q, {
						cursor: encodeCursor({ d: 'p', s: first.start, k: first.appointment_key }),
					}),
				)
			: 'null';
	return {
		status: 200,
		raw: `{"next":${next},"previous":${previous},"results":[${items.join(',')}]}`,
	};
}

export default async function appointmentRoutes(app: FastifyInstance) {
	const s = app.sandbox;
	/** The filter without the records `readLagMs` still hides (writes go to the primary and see them all). */
	const readable = (filter: ListFilter): ListFilter => {
		const hidden = s.unreadable();
		if (!hidden.size) return filter;
		return {
			...filter,
			preds: [...filter.preds, (e) => !hidden.has(e.a.appointment_key)],
			key: `${filter.key}|hidden:${[...hidden].sort().join(',')}`,
		};
	};

	app.api('GET', '/api/v3/appointments/', (req) => {
		const q = new URLSearchParams(splitUrl(req.url).search);
		const parsed = parseListFilter(q, s.cfg.timeZone, s.cfg.dstWallClock);
		if (parsed.errors) return fieldErrors(parsed.errors);
		return listResponse(s, req, '/api/v3/appointments/', q, readable(parsed.filter!));
	});

	app.api('GET', '/api/v3/appointments/:key/', (req) => {
		const a = appointmentParam(s, req);
		return a && !s.unreadable().has(a.appointment_key)
			? { status: 200, raw: s.store.json(a) }
			: NOT_FOUND();
	});

	app.api('PATCH', '/api/v3/appointments/:key/', (req) => {
		const a = appointmentParam(s, req);
		if (!a) return NOT_FOUND();
		const body = readJsonObject(req);
		return body.error ?? changeStatus(s, a, body.value!);
	});

	app.api('PATCH', '/api/v3/appointments/:key/reschedule/', (req) => {
		const a = appointmentParam(s, req);
		if (!a) return NOT_FOUND();
		const body = readJsonObject(req);
		return body.error ?? reschedule(s, a, body.value!);
	});

	app.api('DELETE', '/api/v3/appointments/:key/', (req) => {
		const a = appointmentParam(s, req);
		if (!a) return NOT_FOUND();
		const raw = new URLSearchParams(splitUrl(req.url).search).getAll('send_email').pop();
		let sendEmail = false;
		if (raw !== undefined && raw.trim() !== '') {
			const b = parseBoolean(raw);
			if (b === undefined)
				return fieldErrors({
					send_email: [`"${raw.slice(0, 200)}" is not a valid boolean: expected true or false.`],
				});
			sendEmail = b;
		}
		return cancel(s, a, sendEmail);
	});
}
