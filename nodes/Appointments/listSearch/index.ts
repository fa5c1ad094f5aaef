export { searchAppointments } from './appointments';
export { searchWebhooks } from './webhooks';
export { searchCalendars } from './calendars';
