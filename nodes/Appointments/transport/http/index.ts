/**
 * The HTTP layer: the one place that sends requests (through n8n's helper, with the credential), retries them,
 * reads the answers and turns failures into errors without the token. The list and resource layers use it.
 */
export {
	CREDENTIAL_NAME,
	DEFAULT_POLICY,
	credentialInfo,
	resolvePolicy,
	transportCredentialInfo,
	type CredentialInfo,
	type RequestPolicy,
	type TransportContext,
} from './credentialInfo';
export { accountTimeZone } from './accountZone';
export { MAX_BODY_BYTES, type Outcome } from './httpAttempt';
export { apiRequest, apiRequestUrl, type ApiRequestOptions } from './apiRequest';
export {
	backoffDelay,
	parseRetryAfter,
	type ApiResponse,
	type RetryBudget,
	type RetryHooks,
	type SendOptions,
	type SharedWait,
} from './retries';
export {
	apiError,
	fixFor,
	recordOf,
	responseError,
	seconds,
	statusMessage,
	unconfirmedError,
	type ErrorLabels,
	type Tried,
} from './apiErrors';
export { formatErrorBody } from './errorBodyText';
export { redact, redactError } from './redaction';
export { buildApiUrl, encodeQuery, normaliseBaseUrl, originOf, resolveSameOrigin } from './apiUrls';
