/** Part 1's contestants besides the node (a bare undici loop, n8n's helper in a plain loop) and its page checks. */
import { request, type Agent } from 'undici';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { API_TOKEN, queryString, type Client } from './common';

const LIST_PATH = '/api/v3/appointments/';

/** The bare baseline: GET the first page, then every `next`, parse each body, keep every record. */
export async function bareLoop(firstUrl: string, dispatcher: Agent): Promise<number> {
	const records: unknown[] = [];
	let next: string | undefined = firstUrl;
	while (next) {
		const res = await request(next, {
			dispatcher,
			headers: { authorization: `Bearer ${API_TOKEN}`, accept: 'application/json' },
		});
		if (res.statusCode !== 200) throw new Error(`GET ${next} answered ${res.statusCode}`);
		const body = (await res.body.json()) as { results: unknown[]; next?: string | null };
		for (const record of body.results) records.push(record);
		next = body.next ? new URL(body.next, next).href : undefined;
	}
	return records.length;
}

/** Whether two runs fetched the same pages (the node fetches several at a time, so in another order). */
export function samePages(a: string[], b: string[]): boolean {
	return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

/** The list requests in the sandbox's log, as path?query strings. */
export function listRequests(
	requests: Array<{ method: string; path: string; query?: unknown }>,
): string[] {
	return requests
		.filter((r) => r.method === 'GET' && r.path.replace(/\?.*$/, '') === LIST_PATH)
		.map((r) => {
			const inPath = r.path.includes('?') ? r.path.slice(r.path.indexOf('?') + 1) : '';
			const q = inPath || queryString(r.query);
			return q ? `${LIST_PATH}?${q}` : LIST_PATH;
		});
}

export async function pageSizes(admin: Client): Promise<{ defaultSize: number; maxSize: number }> {
	const config = (await admin.ok('GET', '/__sandbox/config/')) as IDataObject;
	const find = (re: RegExp): number | undefined => {
		for (const [k, v] of Object.entries(config)) if (re.test(k) && typeof v === 'number') return v;
		return undefined;
	};
	return {
		defaultSize: find(/^(default)?page_?size$/i) ?? 50,
		maxSize: find(/^max_?page_?size$/i) ?? 500,
	};
}

/**
 * The floor for any n8n node: GET the first page and every `next` through this.helpers.httpRequestWithAuthentication
 * (n8n's HTTP stack, our credential), keep every record, and output them as items with n8n's helpers.
 * `stream`: each answer read as a stream with a byte count, the least a node must do to bound an answer's size
 * (n8n's helper sets no limit and its time-out stops at the headers; issue 10 asks for both): in n8n 2.41 that
 * is axios's `responseType: 'stream'`, which wraps every answer in an async generator.
 */
export function helperLoopNode(firstUrl: string, stream = false): INodeType {
	return {
		description: {
			displayName: 'n8n Helper Loop',
			name: 'benchHelperLoop',
			group: ['transform'],
			version: 1,
			description: 'Fetches pages through n8n helpers',
			defaults: { name: 'n8n Helper Loop' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'appointmentsApi', required: true }],
			properties: [],
		},
		async execute(this: IExecuteFunctions) {
			const records: IDataObject[] = [];
			let next: string | undefined = firstUrl;
			while (next) {
				let body: { results: IDataObject[]; next?: string | null };
				if (stream) {
					const response = (await this.helpers.httpRequestWithAuthentication.call(
						this,
						'appointmentsApi',
						{
							method: 'GET',
							url: next,
							headers: { Accept: 'application/json' },
							encoding: 'stream',
							returnFullResponse: true,
						},
					)) as { body: NodeJS.ReadableStream };
					body = JSON.parse(await readCapped(response.body)) as typeof body;
				} else {
					body = (await this.helpers.httpRequestWithAuthentication.call(this, 'appointmentsApi', {
						method: 'GET',
						url: next,
						headers: { Accept: 'application/json' },
						json: true,
					})) as typeof body;
				}
				for (const record of body.results) records.push(record);
				next = body.next ? new URL(body.next, next).href : undefined;
			}
			return [
				this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(records), {
					itemData: { item: 0 },
				}),
			];
		},
	} as unknown as INodeType;
}

export async function readCapped(
	body: NodeJS.ReadableStream,
	limit = 64 * 1024 * 1024,
): Promise<string> {
	return await new Promise<string>((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		body.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > limit) reject(new Error('too large'));
			else chunks.push(chunk);
		});
		body.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		body.on('error', reject);
	});
}

export function passThroughNode(): INodeType {
	return {
		description: {
			displayName: 'Pass Through',
			name: 'benchPassThrough',
			group: ['transform'],
			version: 1,
			description: 'Returns its input',
			defaults: { name: 'Pass Through' },
			inputs: ['main'],
			outputs: ['main'],
			properties: [],
		},
		async execute(this: { getInputData(): INodeExecutionData[] }) {
			return [this.getInputData()];
		},
	} as unknown as INodeType;
}
