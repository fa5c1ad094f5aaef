/**
 * What n8n's editor calls outside a workflow run: the credential test (testCredential) and a resource locator's
 * list search (listSearch).
 */
import type { IDataObject, INode, INodeListSearchResult } from 'n8n-workflow';

import { core, workflowLib } from './n8nCore';
import { applyAuthentication, credentialTypes } from './n8nCredentials';
import { defaultNodeType, InputNode, testAdditionalData, TestNodeTypes } from './n8nWorkflow';

/**
 * Runs the credential type's `test` request as n8n's credential tester does: the request's expressions are
 * resolved with `$credentials` by n8n's own expression engine, the credential's `authenticate` is applied, the
 * request is sent over real HTTP, and a `responseCode` rule matching the status turns into the failure message.
 */
export async function testCredential(
	credentials: { baseUrl: string; accessToken: string },
	typeName = 'appointmentsApi',
): Promise<{ status: 'OK' | 'Error'; message: string; url?: string }> {
	const type = credentialTypes[typeName];
	if (!type?.test) throw new Error(`credential ${typeName} has no test`);
	const node: INode = {
		id: 'c',
		name: 'Credential test',
		type: 'test.testInput',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const workflow = new workflowLib.Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new TestNodeTypes({ 'test.testInput': new InputNode() }),
	});
	const resolve = (value: unknown) =>
		typeof value === 'string' && value.startsWith('=')
			? workflow.expression.getSimpleParameterValue(
					node,
					value,
					'internal',
					{ $credentials: credentials } as never,
					undefined,
					'',
				)
			: value;
	const request = type.test.request;
	const baseURL = String(resolve(request.baseURL) ?? '');
	const url = new URL(String(resolve(request.url)), baseURL.endsWith('/') ? baseURL : baseURL + '/')
		.href;
	// n8n joins baseURL and url as axios does: base without trailing slash + url with leading slash.
	const joined = String(resolve(request.url)).startsWith('/')
		? baseURL.replace(/\/+$/, '') + String(resolve(request.url))
		: url;
	const options = await applyAuthentication(
		{ ...credentials },
		typeName,
		{ url: joined, method: request.method ?? 'GET', headers: {} },
		workflow,
		node,
	);
	let status: number;
	try {
		const response = await fetch(joined, {
			method: options.method,
			headers: options.headers as Record<string, string>,
		});
		status = response.status;
		await response.arrayBuffer();
	} catch (error) {
		const cause = (error as { cause?: { code?: string; message?: string } }).cause;
		return {
			status: 'Error',
			message: `Couldn't connect with these settings: ${cause?.code ?? (error as Error).message}`,
			url: joined,
		};
	}
	for (const rule of type.test.rules ?? []) {
		if (rule.type === 'responseCode' && rule.properties.value === status) {
			return { status: 'Error', message: rule.properties.message, url: joined };
		}
	}
	if (status >= 400)
		return { status: 'Error', message: `Request failed with status code ${status}`, url: joined };
	return { status: 'OK', message: 'Connection tested successfully', url: joined };
}

/**
 * Calls a `listSearch` method of the Appointments node (default version) as n8n's editor does when a resource
 * locator's list opens, searches or scrolls: through n8n-core's LoadOptionsContext with the given credential.
 */
export async function listSearch(options: {
	method: string;
	credentials: { baseUrl: string; accessToken: string; accountTimeZone?: string };
	filter?: string;
	paginationToken?: string;
	timezone?: string;
	parameters?: IDataObject;
}): Promise<INodeListSearchResult> {
	const nodeType = workflowLib.NodeHelpers.getVersionedNodeType(defaultNodeType());
	const search = nodeType.methods?.listSearch?.[options.method];
	if (!search) throw new Error(`no listSearch method ${options.method}`);
	const typeName = `test.${nodeType.description.name}`;
	const node: INode = {
		id: 'under-test',
		name: 'Node',
		type: typeName,
		typeVersion: nodeType.description.version as number,
		position: [0, 0],
		parameters: (options.parameters ?? {}) as INode['parameters'],
		credentials: { appointmentsApi: { id: 'cred-1', name: 'Appointments account' } },
	};
	const workflow = new workflowLib.Workflow({
		id: 'wf-test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new TestNodeTypes({ [typeName]: defaultNodeType() }),
		settings: { timezone: options.timezone ?? 'America/Santiago' },
	});
	const additionalData = testAdditionalData({
		credentials: options.credentials,
		publicBase: 'http://127.0.0.1:5678',
		where: 'in list searches',
	});
	const context = new core.LoadOptionsContext(
		workflow,
		node,
		additionalData,
		'parameters.appointmentKey',
	);
	return await search.call(context, options.filter, options.paginationToken);
}
