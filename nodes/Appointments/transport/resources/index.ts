/** The service's endpoints as calls: appointments and webhook subscriptions, each with its rule for lost answers. */
export {
	appointmentPath,
	cancelAppointment,
	getAppointment,
	mutateAppointment,
	readAppointment,
	type CancelOutcome,
} from './appointmentCalls';
export { deleteWebhook, listWebhooks, updateWebhook, type WebhookOpts } from './webhookCalls';
export { createWebhook } from './createWebhook';
