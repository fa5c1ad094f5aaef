/**
 * globalSetup of the e2e config: the package built and packed once (buildOnce.ts), then one n8n user folder made
 * once for the run, which each file's stack starts from a copy of (startE2EStack): our package installed and
 * n8n's database migrated, the two things a fresh folder spends 10-25 s of each file on. A copy starts with no
 * owner and no workflows, like a fresh folder.
 */
import { n8nCliOk } from '../../scripts/n8nCli';
import { prepare } from '../../scripts/n8n';
import { freePort } from '../../scripts/proc';
import buildOnce from './buildOnce';
import { E2E_TEMPLATE_ENV, e2eUserFolder } from './e2e';

export default async function e2eSetup(): Promise<void> {
	buildOnce();
	const log = (m: string) => process.stderr.write(`[jest globalSetup] ${m}\n`);
	const userFolder = e2eUserFolder('e2e-template');
	const { cert } = prepare(userFolder, log);
	log('Migrating a fresh n8n database for the e2e files (n8n list:workflow)...');
	await n8nCliOk({ userFolder, port: await freePort(), cert }, ['list:workflow']);
	process.env[E2E_TEMPLATE_ENV] = userFolder;
}
