/**
 * What the node creator and the credential dialog show before a node is added: the codex files (n8n's format,
 * as nodes-base writes it) give all three nodes the words a builder searches for, and the credential says where
 * each value is found and links the README's credential section.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeTypeDescription } from 'n8n-workflow';

import { AppointmentsApi } from '../../credentials/AppointmentsApi.credentials';
import { Appointments } from '../../nodes/Appointments/Appointments.node';
import { AppointmentsPollingTrigger } from '../../nodes/Appointments/AppointmentsPollingTrigger.node';
import { AppointmentsTrigger } from '../../nodes/Appointments/AppointmentsTrigger.node';

const ROOT = join(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const repository = String(pkg.homepage).replace(/#.*$/, '');

/** The version n8n gives a node newly added: a versioned node's defaultVersion, else its (highest) version. */
const NEW_NODE_VERSION: Record<string, number> = Object.fromEntries(
	[new Appointments(), new AppointmentsTrigger(), new AppointmentsPollingTrigger()].map((n) => {
		const d = n.description as INodeTypeDescription;
		const versions = [d.version].flat();
		return [d.name, d.defaultVersion ?? Math.max(...versions)];
	}),
);

describe.each(['Appointments', 'AppointmentsTrigger', 'AppointmentsPollingTrigger'])(
	'%s.node.json',
	(file) => {
		const codex = JSON.parse(
			readFileSync(join(ROOT, 'nodes/Appointments', `${file}.node.json`), 'utf8'),
		);
		const typeName = file[0].toLowerCase() + file.slice(1);

		test('names its node type and has the codex fields n8n reads', () => {
			expect(codex).toMatchObject({
				node: `${pkg.name}.${typeName}`,
				codexVersion: '1.0',
				categories: ['Productivity'],
			});
		});

		test("its nodeVersion is the version a new node gets (the node's default version)", () => {
			expect(NEW_NODE_VERSION[typeName]).toBeDefined();
			expect(Number.parseFloat(codex.nodeVersion)).toBe(NEW_NODE_VERSION[typeName]);
		});

		test('the node creator finds it under booking, calendar, schedule, reservation, reminder and meeting', () => {
			for (const word of [
				'booking',
				'calendar',
				'schedule',
				'reservation',
				'reminder',
				'meeting',
			]) {
				expect(codex.alias.map((a: string) => a.toLowerCase())).toContain(word);
			}
		});

		test("its credential documentation is the README's credential section", () => {
			expect(codex.resources.credentialDocumentation).toEqual([
				{ url: `${repository}#credentials` },
			]);
		});
	},
);

describe('the Appointments API credential', () => {
	const credential = new AppointmentsApi();

	test("documentationUrl points at the README's credential section", () => {
		expect(credential.documentationUrl).toBe(`${repository}#credentials`);
	});

	test('each field says where the builder finds it', () => {
		for (const field of credential.properties) {
			expect(field.description).toMatch(/service dashboard: Settings › API access/);
		}
		// Shown under the field, not only in its tooltip; in the sandbox too (npm run dev).
		const token = credential.properties.find((p) => p.name === 'accessToken')!;
		expect(token.hint).toMatch(/Settings › API access[\s\S]*sandbox dashboard's API access page/);
	});
});
