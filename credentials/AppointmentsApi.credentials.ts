import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * Credentials of the scheduling service: base URL, a bearer access token, and the account's time zone (where the
 * service reads the offset-less date filters; empty: the zone the node reads dates in, as before the field existed).
 *
 * The base URL may be given with or without a trailing slash and with or without the `/api/v3` suffix;
 * the test request and the node's transport both normalise it the same way (strip trailing slashes, then a
 * trailing `/api/v3`), so no request ever contains a double slash.
 */
export class AppointmentsApi implements ICredentialType {
	name = 'appointmentsApi';

	displayName = 'Appointments API';

	documentationUrl = 'https://github.com/n8n-nodes-appointments/n8n-nodes-appointments#credentials';

	icon: Icon = {
		light: 'file:../nodes/Appointments/appointments.svg',
		dark: 'file:../nodes/Appointments/appointments.dark.svg',
	};

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description:
				'Copy it from the service dashboard: Settings › API access shows the base URL (with or without /api/v3 works)',
			// n8n's credential test shows only the network code when nothing answers; a declarative test cannot
			// change that, and a node's credentialTest could only use the deprecated helpers.request.
			hint: 'If the test says ECONNREFUSED, nothing answers at this host and port; ENOTFOUND, the host name does not exist; ETIMEDOUT, no answer in time; DEPTH_ZERO_SELF_SIGNED_CERT or another certificate error, the address serves https with a certificate n8n does not trust (use the address Settings › API access shows, or make n8n trust that certificate with NODE_EXTRA_CA_CERTS); ERR_SSL_WRONG_VERSION_NUMBER, the address answers in plain http, not https (use the address Settings › API access shows). Check the address, and that n8n can reach it.',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Copy it from the service dashboard: Settings › API access shows the access token for this account',
			hint: "In the service's dashboard: Settings › API access, Access token, Copy. Trying it locally (npm run dev): the sandbox dashboard's API access page.",
		},
		{
			displayName: 'Account Time Zone',
			name: 'accountTimeZone',
			type: 'string',
			default: '',
			placeholder: 'e.g. America/Santiago',
			description:
				"The time zone your account is set to, so that Today and other date ranges select your account's appointments even when n8n runs in another zone (copy it from the service dashboard: Settings › API access shows it; leave empty if it is the workflow's time zone)",
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.accessToken}}',
			},
		},
	};

	// The webhook list is cheap and needs webhook permission, so a token that passes can also run the trigger.
	// An unreachable host fails on its own (connection error), before any rule is consulted.
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{String($credentials.baseUrl).trim().replace(/\\/+$/, "").replace(/\\/api\\/v3$/i, "").replace(/\\/+$/, "")}}',
			url: '/api/v3/webhooks/',
			method: 'GET',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'Authorization failed - the access token is invalid or expired',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The access token is valid but lacks permission for webhooks (needed by the credential test and the Appointments Trigger)',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No scheduling API found at this base URL (GET /api/v3/webhooks/ answered 404)',
				},
			},
		],
	};
}
