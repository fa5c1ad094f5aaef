export * from './calendar';
export * from './constants';
export * from './dateInput';
export * from './simplify';
export * from './validation';
export * from './webhookInput';
export * from './eventFilter';
export * from './triggerError';
