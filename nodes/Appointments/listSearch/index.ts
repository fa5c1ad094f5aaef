export { searchAppointments } from './appointmentList';
export { searchWebhooks } from './webhookList';
export { searchCalendars } from './calendarList';
