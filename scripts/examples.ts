/**
 * The example workflows (examples/*.json) and the two credentials they use, imported into an n8n user folder
 * through n8n's CLI before the server starts (importAll), or into a running n8n 2.x through its APIs, as the
 * editor's import does (importOverApi: no second n8n boot): the "Appointments API" pointing at the sandbox and the
 * "Local mail sink" (SMTP) pointing at its mail sink.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { JsonClient } from './jsonClient';
import { n8nCliOk, type CliTarget } from './n8nCli';
import { ROOT } from './paths';

export const CREDENTIAL_ID = 'apptsApiCred01';
export const CREDENTIAL_NAME = 'Appointments API';
export const CREDENTIAL_TYPE = 'appointmentsApi';
export const EXAMPLES_DIR = path.join(ROOT, 'examples');
export const CALENDAR_PLACEHOLDER = 'REPLACE_WITH_YOUR_CALENDAR_KEY';
/** n8n's SMTP credential for the sandbox's mail sink, used by the examples' Send Email nodes. */
export const SMTP_CREDENTIAL_ID = 'mailSinkSmtp001';
export const SMTP_CREDENTIAL_NAME = 'Local mail sink';
export const SMTP_CREDENTIAL_TYPE = 'smtp';

/** The SMTP credential's data (n8n's `smtp` type): the sink on loopback, no TLS, no user. */
export function smtpCredentialData(smtpPort: number) {
	return {
		user: '',
		password: '',
		host: '127.0.0.1',
		port: smtpPort,
		secure: false,
		disableStartTls: true,
		hostName: '',
	};
}

export interface ExampleWorkflow {
	file: string;
	id: string;
	name: string;
	json: any;
	isTrigger: boolean;
}

export function readExamples(): ExampleWorkflow[] {
	return fs
		.readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => {
			const json = JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, f), 'utf8'));
			return {
				file: f,
				id: json.id,
				name: json.name,
				json,
				isTrigger: json.nodes.some(
					(n: any) => n.type === 'n8n-nodes-appointments.appointmentsTrigger',
				),
			};
		});
}

/** The credentials the examples name (ids included): the Appointments API and, with `smtpPort`, the Local mail sink. */
function exampleCredentials(sandboxUrl: string, apiToken: string, smtpPort?: number) {
	return [
		{
			id: CREDENTIAL_ID,
			name: CREDENTIAL_NAME,
			type: CREDENTIAL_TYPE,
			data: { baseUrl: sandboxUrl, accessToken: apiToken },
		},
		...(smtpPort === undefined
			? []
			: [
					{
						id: SMTP_CREDENTIAL_ID,
						name: SMTP_CREDENTIAL_NAME,
						type: SMTP_CREDENTIAL_TYPE,
						data: smtpCredentialData(smtpPort),
					},
				]),
	];
}

/** An example's workflow JSON as imported: the daily report's calendar placeholder replaced by `calendarKey`. */
function filledIn(ex: ExampleWorkflow, calendarKey: string | undefined): string {
	const text = JSON.stringify(ex.json);
	return calendarKey ? text.split(CALENDAR_PLACEHOLDER).join(calendarKey) : text;
}

/**
 * The same as importAll into a running n8n (2.x: its public API keeps a credential's given id, its REST API a
 * workflow's): the credentials through `api` (an API key), the examples through `rest` (the owner's session).
 */
export async function importOverApi(
	rest: JsonClient,
	api: JsonClient,
	sandboxUrl: string,
	apiToken: string,
	calendarKey: string | undefined,
	smtpPort?: number,
): Promise<ExampleWorkflow[]> {
	for (const credential of exampleCredentials(sandboxUrl, apiToken, smtpPort))
		await api.ok('POST', '/api/v1/credentials', { body: credential });
	const examples = readExamples();
	for (const ex of examples)
		await rest.ok('POST', '/rest/workflows', { body: JSON.parse(filledIn(ex, calendarKey)) });
	return examples;
}

async function importCredentials(target: CliTarget, work: string, credentials: string) {
	const credFile = path.join(work, 'credential.json');
	fs.writeFileSync(credFile, credentials, { mode: 0o600 });
	try {
		await n8nCliOk(target, ['import:credentials', `--input=${credFile}`]);
	} finally {
		fs.rmSync(credFile, { force: true });
	}
}

/**
 * Imports the credentials (the Appointments API pointing at the sandbox, and with `smtpPort` the Local mail sink)
 * and the examples through n8n's CLI, before the server starts.
 */
export async function importAll(
	target: CliTarget,
	sandboxUrl: string,
	apiToken: string,
	calendarKey: string | undefined,
	reimport: 'changed' | 'always',
	smtpPort?: number,
): Promise<ExampleWorkflow[]> {
	const work = path.join(target.userFolder, 'import');
	fs.mkdirSync(work, { recursive: true });
	// What was imported last time, by hash: each CLI import is an n8n boot (5-15 s), so only what changed goes in.
	const stampFile = path.join(work, 'examples.sha256.json');
	const stamps: Record<string, string> =
		reimport === 'changed' && fs.existsSync(stampFile)
			? JSON.parse(fs.readFileSync(stampFile, 'utf8'))
			: {};
	const credentials = JSON.stringify(exampleCredentials(sandboxUrl, apiToken, smtpPort));
	const credentialsHash = crypto.createHash('sha256').update(credentials).digest('hex');
	if (stamps['(credentials)'] !== credentialsHash) {
		await importCredentials(target, work, credentials);
		stamps['(credentials)'] = credentialsHash;
	}
	const examples = readExamples();
	const todo: any[] = [];
	for (const ex of examples) {
		const text = filledIn(ex, calendarKey);
		const hash = crypto.createHash('sha256').update(text).digest('hex');
		if (stamps[ex.id] === hash) continue;
		todo.push(JSON.parse(text));
		stamps[ex.id] = hash;
	}
	if (todo.length) {
		const wfFile = path.join(work, 'workflows.json');
		fs.writeFileSync(wfFile, JSON.stringify(todo));
		await n8nCliOk(target, ['import:workflow', `--input=${wfFile}`]);
		fs.rmSync(wfFile, { force: true });
	}
	fs.writeFileSync(stampFile, JSON.stringify(stamps, null, 2));
	return examples;
}
