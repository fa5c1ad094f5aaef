/**
 * The round loop every part that compares contestants shares: warm-up rounds whose samples are dropped, then
 * rounds in which each contestant runs once, in an order that changes from round to round so that none always
 * runs right after another's garbage, a full GC before each run, and the wall and CPU time of every run.
 */
import { median, round, type Row } from './common';
import { gc } from './node';

/**
 * rotate: round i runs contestants[(i + k) % n] at position k; alternate: the listed order in even rounds, the
 * reverse in odd ones; fixed: always the listed order. Warm-up rounds count in i.
 */
export type RoundOrder = 'rotate' | 'alternate' | 'fixed';

export interface Sample {
	wallMs: number;
	/** CPU time of this process (user + system) during the run: far less sensitive than wall time to other
	 * processes on a busy machine. */
	cpuMs: number;
}

export interface RoundLoop<C extends string, R> {
	contestants: readonly C[];
	rounds: number;
	warmups?: number;
	order?: RoundOrder;
	/** A full GC before every run (default true); off where the work runs in other processes. */
	gc?: boolean;
	/** Untimed, before the GC (clear a log, make fresh input). */
	before?: (which: C, round: number) => unknown;
	/** The timed run; what it returns is kept (a figure the contestant measured itself, or output to check). */
	run: (which: C, round: number) => Promise<R>;
	/** Untimed, after every run, warm-ups included (checks, side measurements, progress lines). */
	after?: (which: C, result: R, sample: Sample, round: number) => unknown;
}

export interface RoundSamples<C extends string, R> {
	wallMs: Record<C, number[]>;
	cpuMs: Record<C, number[]>;
	results: Record<C, R[]>;
}

export function orderOf<C>(contestants: readonly C[], order: RoundOrder, round: number): C[] {
	if (order === 'fixed') return [...contestants];
	if (order === 'alternate') return round % 2 ? [...contestants].reverse() : [...contestants];
	return contestants.map((_, k) => contestants[(round + k) % contestants.length]);
}

export async function runRounds<C extends string, R>(
	loop: RoundLoop<C, R>,
): Promise<RoundSamples<C, R>> {
	const each = <T>() =>
		Object.fromEntries(loop.contestants.map((c) => [c, [] as T[]])) as Record<C, T[]>;
	const samples: RoundSamples<C, R> = { wallMs: each(), cpuMs: each(), results: each() };
	const warmups = loop.warmups ?? 0;
	for (let i = 0; i < warmups + loop.rounds; i++) {
		for (const which of orderOf(loop.contestants, loop.order ?? 'rotate', i)) {
			await loop.before?.(which, i);
			if (loop.gc !== false) gc();
			const t0 = performance.now();
			const c0 = process.cpuUsage();
			const result = await loop.run(which, i);
			const c = process.cpuUsage(c0);
			const sample = { wallMs: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
			await loop.after?.(which, result, sample, i);
			if (i < warmups) continue;
			samples.wallMs[which].push(sample.wallMs);
			samples.cpuMs[which].push(sample.cpuMs);
			samples.results[which].push(result);
		}
	}
	return samples;
}

/** The median of each contestant's samples. */
export function medians<C extends string>(samples: Record<C, number[]>): Record<C, number> {
	return Object.fromEntries(
		Object.entries<number[]>(samples).map(([k, v]) => [k, median(v)]),
	) as Record<C, number>;
}

/**
 * The median of a / b taken round by round: the two ran next to each other in each round, so a slow stretch of the
 * machine weighs on both and cancels, where a ratio of medians pairs samples from different moments.
 */
export function pairedRatio(a: number[], b: number[]): number {
	return median(a.map((value, i) => value / b[i]));
}

/** The lowest and highest of a figure over its rounds, as the table prints it: "0.95-1.31 (11 rounds)". */
export function spreadOf(values: number[], digits = 3): string {
	if (values.length < 2) return `${values.length} round`;
	const s = [...values].sort((x, y) => x - y);
	return `${s[0].toFixed(digits)}-${s[s.length - 1].toFixed(digits)} (${s.length} rounds)`;
}

/** pairedRatio with the spread of the per-round ratios. */
export function pairedRatioSpread(a: number[], b: number[]): { ratio: number; spread: string } {
	return { ratio: pairedRatio(a, b), spread: spreadOf(a.map((value, i) => value / b[i])) };
}

/**
 * The CPU time our code adds over the plainest code doing the same through n8n is a regression guard, not a
 * target: rounds on a shared machine spread by more than the few per cent a target could ask (docs/benchmarks.md).
 */
export const CPU_GUARD = 1.25;
export const CPU_GUARD_TARGET = `<= ${CPU_GUARD} (guard)`;

/**
 * A guard row: our CPU time per round against the plainest code's in the same rounds, the median of the paired
 * ratios with their spread; `details` adds what the part measured beside it (wall times, other ratios).
 */
export function cpuGuardRow(
	part: number,
	name: string,
	ours: number[],
	plainest: number[],
	details: Record<string, unknown> = {},
): Row {
	const { ratio, spread } = pairedRatioSpread(ours, plainest);
	const [o, p] = [median(ours), median(plainest)];
	const ms = (values: number[]) => values.map((v) => round(v, 1));
	return {
		part,
		name,
		value: round(o, 1),
		baseline: round(p, 1),
		unit: 'ms',
		ratio: round(ratio, 3),
		spread,
		target: CPU_GUARD_TARGET,
		met: ratio <= CPU_GUARD,
		details: {
			ratioOfMedians: round(o / p, 3),
			oursCpuMs: ms(ours),
			plainestCpuMs: ms(plainest),
			...details,
		},
	};
}
