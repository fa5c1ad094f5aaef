export * from './calendar';
export * from './constants';
export * from './dates';
export * from './simplify';
export * from './validation';
export * from './webhooks';
export * from './eventFilter';
export * from './triggerError';
