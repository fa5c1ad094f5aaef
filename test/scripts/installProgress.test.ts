/**
 * What the first `npm run dev` prints while n8n installs (npm itself is silent for minutes): a line every 15 s with
 * the time so far and the packages unpacked so far, counted from the install folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { countPackages, progressLine } from '../../scripts/installProgress';

test("the packages unpacked so far: each package once, a scope counting its packages, npm's own files not", () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'install-progress-'));
	try {
		expect(countPackages(dir)).toBe(0); // npm has not made node_modules yet
		for (const p of ['luxon', 'n8n', '@n8n/di', '@n8n/config', '.bin', '.package-lock.json'])
			fs.mkdirSync(path.join(dir, 'node_modules', p), { recursive: true });
		expect(countPackages(dir)).toBe(4);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
});

test('the line says what is installing, for how long, how far, and how long it takes in all', () => {
	expect(progressLine('2.41.1', 15_000, 0)).toBe(
		'  … installing n8n 2.41.1: 15 s, 0 packages so far (about 5 minutes in all, first run only)',
	);
	expect(progressLine('2.41.1', 185_400, 1114)).toBe(
		'  … installing n8n 2.41.1: 3 min 05 s, 1114 packages so far (about 5 minutes in all, first run only)',
	);
});
