export { searchAppointments } from './appointmentList.js';
export { searchWebhooks } from './webhookList.js';
export { searchCalendars } from './calendarList.js';
