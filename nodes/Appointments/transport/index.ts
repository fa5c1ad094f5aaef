export * from './request';
export * from './paginate';
export * from './appointments';
export * from './webhooks';
export {
	normaliseBaseUrl,
	buildApiUrl,
	encodeQuery,
	parseRetryAfter,
	backoffDelay,
	formatErrorBody,
	resolveSameOrigin,
} from './utils';
