/**
 * The HTTP layer: the one place that sends requests (through n8n's helper, with the credential), retries them,
 * reads the answers and turns failures into errors without the token. The list and resource layers use it.
 */
export {
	DEFAULT_POLICY,
	accountTimeZone,
	credentialInfo,
	resolvePolicy,
	type RequestPolicy,
	type TransportContext,
} from './credentialInfo';
export { type SendResult } from './httpAttempt';
export { apiRequest, apiRequestUrl } from './apiRequest';
export { backoffDelay, parseRetryAfter, type ApiResponse, type RetryBudget } from './retries';
export { apiError, recordOf, responseError, statusMessage, unconfirmedError } from './apiErrors';
export { formatErrorBody } from './errorBodyText';
export { redact, redactError } from './redaction';
export { buildApiUrl, encodeQuery, normaliseBaseUrl, resolveSameOrigin } from './apiUrls';
