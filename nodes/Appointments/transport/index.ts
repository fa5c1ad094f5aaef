/**
 * The transport's one door: http/ (send, retry, errors), list/ (paging) and resources/ (endpoint calls), each
 * layer using only the ones after it.
 */
export * from './http';
export * from './list';
export * from './resources';
