/** Part 2's contestant besides the node (n8n's helper in a plain PATCH loop) and the check of its output. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

/**
 * The floor for any n8n node doing this job: per item, read the same two parameters (the key through the same
 * expression) and PATCH through this.helpers.httpRequestWithAuthentication, `concurrency` at a time, output in
 * input order, paired. No validation, no retries, no read-back.
 */
export function helperPatchNode(): INodeType {
	return {
		description: {
			displayName: 'n8n Helper Loop',
			name: 'benchHelperPatch',
			group: ['transform'],
			version: 1,
			description: 'PATCHes through n8n helpers',
			defaults: { name: 'n8n Helper Loop' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'appointmentsApi', required: true }],
			properties: [
				{ displayName: 'Key', name: 'appointmentKey', type: 'string', default: '' },
				{ displayName: 'Status', name: 'status', type: 'string', default: '' },
				{ displayName: 'Options', name: 'options', type: 'json', default: {} },
			],
		},
		async execute(this: IExecuteFunctions) {
			const items = this.getInputData();
			const { baseUrl } = (await this.getCredentials('appointmentsApi')) as { baseUrl: string };
			const concurrency = Number(
				(this.getNodeParameter('options', 0, {}) as IDataObject).concurrency ?? 1,
			);
			const jobs = items.map((_, i) => ({
				key: String(this.getNodeParameter('appointmentKey', i)),
				status: String(this.getNodeParameter('status', i)),
			}));
			const out: INodeExecutionData[] = new Array(items.length);
			let nextIndex = 0;
			await Promise.all(
				Array.from({ length: Math.min(concurrency, items.length) }, async () => {
					while (nextIndex < jobs.length) {
						const i = nextIndex++;
						const json = (await this.helpers.httpRequestWithAuthentication.call(
							this,
							'appointmentsApi',
							{
								method: 'PATCH',
								url: `${baseUrl}/api/v3/appointments/${jobs[i].key}/`,
								headers: { Accept: 'application/json' },
								body: { status: jobs[i].status },
								json: true,
							},
						)) as IDataObject;
						out[i] = { json, pairedItem: { item: i } };
					}
				}),
			);
			return [out];
		},
	} as unknown as INodeType;
}

function pairedIndex(item: INodeExecutionData): number | undefined {
	const p = item.pairedItem as unknown;
	if (typeof p === 'number') return p;
	if (Array.isArray(p)) return p.length === 1 ? pairedIndexOf(p[0]) : undefined;
	return pairedIndexOf(p);
}

function pairedIndexOf(p: unknown): number | undefined {
	if (typeof p === 'number') return p;
	if (p && typeof p === 'object' && typeof (p as { item?: unknown }).item === 'number')
		return (p as { item: number }).item;
	return undefined;
}

export interface OrderCheck {
	good: number;
	total: number;
	firstProblem?: string;
	summary: string;
}

/** How many output items hold input item i's appointment, are paired to item i and carry the new status. */
export function orderAndPairing(
	items: INodeExecutionData[],
	keys: string[],
	status: string,
): OrderCheck {
	let good = 0;
	let firstProblem: string | undefined;
	items.forEach((item, i) => {
		const json = item.json as { appointment_key?: string; status?: string };
		const problems: string[] = [];
		if (json.appointment_key !== keys[i])
			problems.push(`appointment_key ${json.appointment_key} instead of ${keys[i]}`);
		if (pairedIndex(item) !== i) problems.push(`pairedItem ${JSON.stringify(item.pairedItem)}`);
		if (json.status !== status) problems.push(`status ${json.status} instead of ${status}`);
		if (problems.length === 0) good++;
		else firstProblem ??= `output item ${i}: ${problems.join(', ')}`;
	});
	return {
		good,
		total: items.length,
		firstProblem,
		summary: `${good}/${keys.length} output items in order and paired${firstProblem ? ` (first problem: ${firstProblem})` : ''}`,
	};
}
