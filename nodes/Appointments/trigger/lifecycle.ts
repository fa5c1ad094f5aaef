/**
 * webhookMethods.default: the subscription's life in the service. n8n calls checkExists on activation (and when
 * "Listen for test event" starts), create when it answered false, delete (remove) on deactivation. Every decision is
 * made by this node's webhook URL (the test URL in test mode, so a test never touches the production subscription):
 * a subscription with another URL is never changed, two for ours are never left, differing events are fixed with PUT.
 * Static data { webhookKey, webhookUrl } is kept by node name: a renamed node finds its subscription by URL.
 */
import { NodeOperationError, type IDataObject, type IHookFunctions } from 'n8n-workflow';

import { httpsUrl, keyOf, sameEvents } from '../shared/webhookInput.js';
import {
	createWebhook,
	deleteWebhook,
	listWebhooks,
	updateWebhook,
} from '../transport/resources/webhookCalls.js';
import { readForPublishing } from './config.js';

type Stored = IDataObject & { webhookKey?: string; webhookUrl?: string };

function httpsProblem(url: string | undefined): string | undefined {
	if (httpsUrl(url) !== undefined) return undefined;
	const fix = `for example behind a reverse proxy with a certificate (nginx, Caddy, Traefik) or a tunnel (Cloudflare Tunnel, ngrok); then restart n8n and activate the workflow again.`;
	return `The scheduling service accepts only HTTPS callback URLs, but n8n's webhook URL for this trigger is "${String(url ?? '')}". Make n8n reachable over https and set N8N_WEBHOOK_URL (or the deprecated WEBHOOK_URL) to that public https address, ${fix}`;
}

// Never undefined: the node declares its 'default' webhook with a fixed path.
const webhookUrl = (ctx: IHookFunctions) => ctx.getNodeWebhookUrl('default')!;

const subscriptionData = (ctx: IHookFunctions) => ctx.getWorkflowStaticData('node') as Stored;

// Written only when changed: each assignment marks the static data for saving.
function remember(data: Stored, key: string, url: string): void {
	if (data.webhookKey !== key) data.webhookKey = key;
	if (data.webhookUrl !== url) data.webhookUrl = url;
}

function forget(data: Stored): void {
	if (data.webhookKey !== undefined) delete data.webhookKey;
	if (data.webhookUrl !== undefined) delete data.webhookUrl;
}

export async function checkExists(this: IHookFunctions): Promise<boolean> {
	// n8n calls this on every start-up too: a parameter that can no longer be read is reported there.
	const events = readForPublishing(this);
	const url = webhookUrl(this);
	const data = subscriptionData(this);
	// No subscription can exist for a URL the service refuses; create() explains why, without a request.
	if (httpsProblem(url) !== undefined) return false;

	const ours = (await listWebhooks(this)).filter((w) => w.url === url && keyOf(w) !== '');
	if (ours.length === 0) {
		if (data.webhookUrl === url || data.webhookUrl === undefined) forget(data);
		return false;
	}
	const keep =
		ours.find((w) => keyOf(w) === data.webhookKey) ??
		ours.find((w) => sameEvents(w.events, events)) ??
		ours[0];
	for (const extra of ours.filter((w) => w !== keep)) {
		this.logger.debug(`Appointments Trigger: deleting a second subscription for this node's URL`, {
			webhookKey: keyOf(extra),
		});
		await deleteWebhook(this, keyOf(extra), { notFoundIsSuccess: true });
	}
	if (!sameEvents(keep.events, events)) {
		this.logger.debug('Appointments Trigger: updating the events of the subscription', {
			webhookKey: keyOf(keep),
			events,
		});
		await updateWebhook(this, keyOf(keep), { url, events });
	}
	remember(data, keyOf(keep), url);
	return true;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	const url = webhookUrl(this);
	const problem = httpsProblem(url);
	if (problem !== undefined) throw new NodeOperationError(this.getNode(), problem);
	const events = readForPublishing(this);
	// The transport returns a subscription only with its webhook_key (from the answer or the service's list).
	const key = keyOf(await createWebhook(this, { url, events }));
	remember(subscriptionData(this), key, url);
	return true;
}

export async function remove(this: IHookFunctions): Promise<boolean> {
	const url = webhookUrl(this);
	const data = subscriptionData(this);
	const stored = data.webhookUrl === undefined || data.webhookUrl === url;
	let keys = data.webhookKey && stored ? [data.webhookKey] : [];
	// Nothing stored for this URL (a renamed node, or static data lost): ours are found by URL, unless the service
	// refuses that URL (then it holds none).
	if (keys.length === 0 && httpsProblem(url) === undefined)
		keys = (await listWebhooks(this)).filter((w) => w.url === url && keyOf(w) !== '').map(keyOf);
	// A 404 means it is already gone (deleted in the dashboard, say): that is the state we want.
	for (const key of keys) await deleteWebhook(this, key, { notFoundIsSuccess: true });
	forget(data);
	return true;
}
