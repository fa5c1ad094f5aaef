/** The credential's Account Time Zone: where the service reads the offset-less datetime filters the nodes send. */
import { IANAZone } from 'luxon';
import { NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_NAME, type TransportContext } from './credentialInfo';

/**
 * The IANA zone the credential names, or undefined when it names none (the field is empty, or a credential saved
 * before it existed): then the caller uses the zone it read the builder's dates in, as before the field existed.
 * A value that is not a zone is an error before any request, never a silent guess.
 */
export async function accountTimeZone(ctx: TransportContext): Promise<string | undefined> {
	const credentials = await ctx.getCredentials(CREDENTIAL_NAME);
	const raw = credentials?.accountTimeZone;
	if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return undefined;
	if (typeof raw === 'string' && IANAZone.isValidZone(raw.trim())) return raw.trim();
	throw new NodeOperationError(
		ctx.getNode(),
		`The credential's Account Time Zone ${JSON.stringify(String(raw)).slice(0, 80)} is not an IANA time zone`,
		{
			description:
				"Open the Appointments API credential and type the time zone your account is set to in the service, such as America/Santiago or Europe/Berlin, or leave it empty to use the workflow's.",
		},
	);
}
