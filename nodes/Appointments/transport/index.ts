export * from './credential';
export * from './errors';
export * from './request';
export * from './paginate';
export * from './appointments';
export * from './webhooks';
export * from './createWebhook';
