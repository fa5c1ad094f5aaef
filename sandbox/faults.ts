/** Fault injection for API requests: the next `count` matching requests fail, are delayed or reset. */
import { z } from 'zod/v4';

const queryValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

export const faultSpec = z
	.object({
		count: z.number().int().min(1).max(1_000_000).default(1),
		status: z.number().int().min(100).max(599).optional(),
		retryAfter: z
			.union([z.string().min(1), z.number().min(0)])
			.transform(String)
			.optional(),
		body: z.unknown().optional(),
		delayMs: z.number().int().min(0).max(600_000).optional(),
		reset: z.boolean().optional(),
		phase: z.enum(['before', 'after']).default('before'),
		match: z
			.object({
				method: z.string().min(1).optional(),
				path: z.string().min(1).optional(),
				query: z.record(z.string(), z.union([queryValue, z.array(queryValue)])).optional(),
			})
			.strict()
			.optional(),
		latencyMs: z.number().int().min(0).max(600_000).optional(),
	})
	.strict();

export type FaultSpec = z.infer<typeof faultSpec>;

export interface Fault {
	id: number;
	remaining: number;
	count: number;
	status?: number;
	retryAfter?: string;
	body?: unknown;
	delayMs?: number;
	reset?: boolean;
	phase: 'before' | 'after';
	match?: { method?: string; path?: string; query?: Record<string, string | string[]> };
}

export class Faults {
	private list: Fault[] = [];
	private nextId = 1;
	/** Added to every API response (`{latencyMs}` form), besides the configured latencyMs. */
	latencyMs = 0;

	add(spec: FaultSpec): Fault | undefined {
		if (spec.latencyMs !== undefined) this.latencyMs = spec.latencyMs;
		if (spec.status === undefined && spec.delayMs === undefined && !spec.reset) return undefined;
		const f: Fault = {
			id: this.nextId++,
			remaining: spec.count,
			count: spec.count,
			status: spec.status,
			retryAfter: spec.retryAfter,
			body: spec.body,
			delayMs: spec.delayMs,
			reset: spec.reset,
			phase: spec.phase,
			match: spec.match,
		};
		this.list.push(f);
		return f;
	}

	/** The first active fault matching the request; its count is consumed. */
	take(method: string, path: string, query: URLSearchParams): Fault | undefined {
		if (!this.list.length) return undefined;
		for (const f of this.list) {
			if (f.remaining <= 0 || !matches(f, method, path, query)) continue;
			f.remaining--;
			if (f.remaining <= 0) this.list = this.list.filter((x) => x !== f);
			return f;
		}
		return undefined;
	}

	active(): Fault[] {
		return this.list.map((f) => ({ ...f }));
	}

	clear() {
		this.list = [];
		this.latencyMs = 0;
	}
}

/** method: case-insensitive; path: exact, or a prefix when it ends with `*`; query: every listed value present. */
function matches(f: Fault, method: string, path: string, query: URLSearchParams): boolean {
	const m = f.match;
	if (!m) return true;
	if (m.method && m.method.toUpperCase() !== method.toUpperCase()) return false;
	if (m.path) {
		if (m.path.endsWith('*')) {
			if (!path.startsWith(m.path.slice(0, -1))) return false;
		} else if (m.path !== path) return false;
	}
	if (m.query) {
		for (const [k, v] of Object.entries(m.query)) {
			const have = query.getAll(k);
			for (const want of Array.isArray(v) ? v : [v]) if (!have.includes(want)) return false;
		}
	}
	return true;
}
