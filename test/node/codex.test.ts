/**
 * What the node creator and the credential dialog show before a node is added: the codex files (n8n's format,
 * as nodes-base writes it) give all three nodes the words a builder searches for, and the credential says where
 * each value is found and links the README's credential section.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { AppointmentsApi } from '../../credentials/AppointmentsApi.credentials';

const ROOT = join(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const repository = String(pkg.homepage).replace(/#.*$/, '');

describe.each(['Appointments', 'AppointmentsTrigger', 'AppointmentsPollingTrigger'])('%s.node.json', (file) => {
	const codex = JSON.parse(readFileSync(join(ROOT, 'nodes/Appointments', `${file}.node.json`), 'utf8'));
	const typeName = file[0].toLowerCase() + file.slice(1);

	test('names its node type and has the codex fields n8n reads', () => {
		expect(codex).toMatchObject({ node: `${pkg.name}.${typeName}`, nodeVersion: '1.0', codexVersion: '1.0', categories: ['Productivity'] });
	});

	test('the node creator finds it under booking, calendar, schedule, reservation, reminder and meeting', () => {
		for (const word of ['booking', 'calendar', 'schedule', 'reservation', 'reminder', 'meeting']) {
			expect(codex.alias.map((a: string) => a.toLowerCase())).toContain(word);
		}
	});

	test("its credential documentation is the README's credential section", () => {
		expect(codex.resources.credentialDocumentation).toEqual([{ url: `${repository}#credentials` }]);
	});
});

describe('the Appointments API credential', () => {
	const credential = new AppointmentsApi();

	test("documentationUrl points at the README's credential section", () => {
		expect(credential.documentationUrl).toBe(`${repository}#credentials`);
	});

	test('each field says where the builder finds it', () => {
		for (const field of credential.properties) {
			expect(field.description).toMatch(/service dashboard: Settings › API access/);
		}
	});
});
