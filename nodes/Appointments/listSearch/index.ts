export { searchAppointments } from './appointments';
export { searchWebhooks } from './webhooks';
