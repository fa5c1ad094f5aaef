/**
 * Our credential types as n8n applies them: applyAuthentication (a type's `authenticate`, generic: every
 * header/qs/body value resolved as an expression with `$credentials`) and TestCredentialsHelper, n8n's
 * CredentialsHelper for tests.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	Workflow as WorkflowType,
} from 'n8n-workflow';

import { AppointmentsApi } from '../../credentials/AppointmentsApi.credentials';
import { workflowLib } from './n8nCore';

export const credentialTypes: Record<string, ICredentialType> = {
	appointmentsApi: new AppointmentsApi(),
};

/** Applies a credential type's `authenticate` as n8n's CredentialsHelper does. */
export async function applyAuthentication(
	credentials: ICredentialDataDecryptedObject,
	typeName: string,
	requestOptions: IHttpRequestOptions,
	workflow?: WorkflowType,
	node?: INode,
): Promise<IHttpRequestOptions> {
	const type = credentialTypes[typeName];
	if (!type) throw new Error(`Unknown credential type ${typeName}`);
	const authenticate = type.authenticate;
	if (!authenticate) return requestOptions;
	if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
	if (authenticate.type !== 'generic')
		throw new Error(`Unsupported authenticate type ${String(authenticate.type)}`);
	const resolve = (value: unknown): unknown => {
		if (typeof value !== 'string' || !value.startsWith('=')) return value;
		if (!workflow || !node)
			throw new Error('Cannot resolve credential expression without workflow and node');
		return workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			{ $credentials: credentials } as never,
			undefined,
			'',
		);
	};
	const props = authenticate.properties as Record<string, IDataObject | undefined>;
	for (const target of ['headers', 'qs', 'body'] as const) {
		const values = props[target];
		if (!values) continue;
		const existing = ((requestOptions as unknown as Record<string, IDataObject | undefined>)[
			target
		] ??= {}) as IDataObject;
		for (const [key, value] of Object.entries(values)) existing[key] = resolve(value) as never;
	}
	if (props.auth) {
		const auth = props.auth as IDataObject;
		requestOptions.auth = {
			username: String(resolve(auth.username)),
			password: String(resolve(auth.password)),
		};
	}
	return requestOptions;
}

/** n8n's CredentialsHelper for tests: returns the given credential data and applies `authenticate` as n8n does. */
export class TestCredentialsHelper extends workflowLib.ICredentialsHelper {
	constructor(private readonly data: ICredentialDataDecryptedObject) {
		super();
	}
	getParentTypes(): string[] {
		return [];
	}
	isCredentialUsableByNode(): boolean {
		return true;
	}
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow?: WorkflowType,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		return await applyAuthentication(credentials, typeName, requestOptions, workflow, node);
	}
	async preAuthentication(): Promise<undefined> {
		return undefined;
	}
	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}
	async getCredentials(): Promise<never> {
		throw new Error('getCredentials is not used by these tests');
	}
	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		return { ...this.data };
	}
	async updateCredentials(): Promise<void> {}
	async updateCredentialsOauthTokenData(): Promise<void> {}
	getCredentialsProperties(type: string) {
		return credentialTypes[type]?.properties ?? [];
	}
}
