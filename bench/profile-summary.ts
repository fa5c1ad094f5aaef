/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per file, top N.
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [N] [filter]
 * Used to find where a benchmark's time goes (see bench/README.md, "Profiling").
 */
import fs from 'node:fs';

interface Node {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}

const [file, nArg, filter] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as {
	nodes: Node[];
	samples: number[];
	timeDeltas: number[];
};
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) =>
	self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
);
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fnTime = new Map<string, number>();
const fileTime = new Map<string, number>();
for (const [id, t] of self) {
	const n = byId.get(id)!;
	const url = n.callFrame.url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '');
	if (filter && !url.includes(filter)) continue;
	const key = `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`;
	fnTime.set(key, (fnTime.get(key) ?? 0) + t);
	const f = url || n.callFrame.functionName;
	fileTime.set(f, (fileTime.get(f) ?? 0) + t);
}
const top = Number(nArg ?? 25);
const pct = (t: number) => ((100 * t) / total).toFixed(1).padStart(5) + '%';
console.log(`total ${(total / 1000).toFixed(0)} ms sampled`);
console.log('\n-- self time by function');
for (const [k, t] of [...fnTime].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(t), k);
console.log('\n-- self time by file');
for (const [k, t] of [...fileTime].sort((a, b) => b[1] - a[1]).slice(0, top))
	console.log(pct(t), k);

// Optional 4th argument: a function name; prints which of our frames (nodes/, credentials/, sandbox/, bench/)
// its self time is reached from.
const who = process.argv[5];
if (who) {
	const parent = new Map<number, number>();
	for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
	const callers = new Map<string, number>();
	for (const [id, t] of self) {
		const n = byId.get(id)!;
		if (n.callFrame.functionName !== who) continue;
		let p = parent.get(id);
		const chain: string[] = [];
		while (p !== undefined && chain.length < 4) {
			const f = byId.get(p)!.callFrame;
			if (/\/(nodes|credentials|sandbox|bench)\//.test(f.url) && !f.url.includes('node_modules')) {
				chain.push(
					`${f.functionName || '(anonymous)'} ${f.url.replace(/^file:\/\//, '').replace(process.cwd() + '/', '')}:${f.lineNumber + 1}`,
				);
			}
			p = parent.get(p);
		}
		const key = chain.join(' <- ') || '(no project frame)';
		callers.set(key, (callers.get(key) ?? 0) + t);
	}
	console.log(`\n-- ${who} reached from`);
	for (const [k, t] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, top))
		console.log(pct(t), k);
}
