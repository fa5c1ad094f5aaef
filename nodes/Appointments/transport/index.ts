/** The transport's one door: http/ (send, retry, errors), list/ (paging, uses http/), resources/ (endpoint calls). */
export { DEFAULT_POLICY, accountTimeZone, credentialInfo, resolvePolicy, type RequestPolicy, type TransportContext } from './http/credentialInfo.js';
export { apiRequest, apiRequestUrl, backoffDelay, parseRetryAfter, type ApiResponse } from './http/apiRequest.js';
export { formatErrorBody, statusMessage } from './http/apiErrors.js';
export { redact } from './http/redaction.js';
export { buildApiUrl, encodeQuery, normaliseBaseUrl, resolveSameOrigin } from './http/apiUrls.js';
export { paginate, paginateAll, type PaginateOptions } from './list/paginate.js';
export { appointmentPath, cancelAppointment, getAppointment, mutateAppointment, readAppointment } from './resources/appointmentCalls.js';
export { createWebhook, deleteWebhook, listWebhooks, updateWebhook, type FirstRun } from './resources/webhookCalls.js';
