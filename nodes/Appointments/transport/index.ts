/** The transport's one door: http/ (send, retry, errors), list/ (paging, uses http/), resources/ (endpoint calls). */
export { DEFAULT_POLICY, accountTimeZone, credentialInfo, resolvePolicy, type RequestPolicy, type TransportContext } from './http/credentialInfo';
export { apiRequest, apiRequestUrl, backoffDelay, parseRetryAfter, type ApiResponse } from './http/apiRequest';
export { formatErrorBody, statusMessage } from './http/apiErrors';
export { redact } from './http/redaction';
export { buildApiUrl, encodeQuery, normaliseBaseUrl, resolveSameOrigin } from './http/apiUrls';
export { paginate, paginateAll, type PaginateOptions } from './list/paginate';
export { appointmentPath, cancelAppointment, getAppointment, mutateAppointment, readAppointment } from './resources/appointmentCalls';
export { createWebhook, deleteWebhook, listWebhooks, updateWebhook, type FirstRun } from './resources/webhookCalls';
