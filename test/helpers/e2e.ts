import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';

import { DEV_DIR } from '../../scripts/paths';

/**
 * A fresh n8n user folder (a database of its own) for one e2e run: .dev/<suite>/run-<time>. Keeps the previous run's
 * folder for debugging, and any folder touched in the last 30 minutes (a run going on in parallel); removes the rest,
 * so the suites do not pile up databases.
 */
export function e2eUserFolder(suite: string): string {
	const root = path.join(DEV_DIR, suite);
	if (fs.existsSync(root)) {
		const recent = (d: string) => Date.now() - fs.statSync(path.join(root, d)).mtimeMs < 30 * 60_000;
		for (const d of fs.readdirSync(root).sort().slice(0, -1)) {
			if (!recent(d)) fs.rmSync(path.join(root, d), { recursive: true, force: true });
		}
	}
	return path.join(root, `run-${DateTime.utc().toFormat('yyyyMMdd-HHmmss')}`);
}
