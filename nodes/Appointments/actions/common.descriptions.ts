/** Field descriptions several operations share, and the Operation fields of a resource built from its operations. */
import type { IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { eventFields, optionsProperty } from '../shared/nodeFields.js';
import { inputError, numberValue } from '../shared/validation.js';

/** A resource's Operation field and every operation's fields, shown for that resource and operation. */
export function resourceDescription(
	resource: string,
	options: INodePropertyOptions[],
	operations: Record<string, { properties: INodeProperties[] }>,
): INodeProperties[] {
	const operation: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		default: 'getAll',
	};
	// Not n8n's updateDisplayOptions: its lodash merge (a deep copy) was our code's costliest step when n8n loads the package.
	const fields = Object.entries(operations).flatMap(([name, { properties }]) =>
		properties.map((p) => {
			const show = { ...p.displayOptions?.show, resource: [resource], operation: [name] };
			return { ...p, displayOptions: { ...p.displayOptions, show } };
		}),
	);
	return [operation, ...fields];
}

export const appointmentKeyField: INodeProperties = {
	displayName: 'Appointment Key',
	name: 'appointmentKey',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. 3f2b8c1e-4d5a-4b6c-9d7e-0f1a2b3c4d5e',
	description: 'The appointment_key (a UUID) of the appointment',
};

export const webhookKeyField: INodeProperties = {
	displayName: 'Webhook Key',
	name: 'webhookKey',
	type: 'string',
	required: true,
	default: '',
	description: 'The webhook_key of the webhook',
};

export function returnAllOrLimit(noun: string): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
			hint: `Only the pages needed for this many ${noun} are requested`,
		},
	];
}

/** Return All and Limit read: undefined for all, else a whole number of at least 1. */
export function readLimit(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	if (ctx.getNodeParameter('returnAll', itemIndex, false) as boolean) return undefined;
	const given = ctx.getNodeParameter('limit', itemIndex, 50) as unknown;
	const limit = numberValue(ctx.getNode(), given, 'Limit', itemIndex, { min: 1, whole: true });
	if (limit === undefined)
		throw inputError(ctx.getNode(), 'Limit', itemIndex, 'a whole number of at least 1', given);
	return limit;
}

export const webhookFields: INodeProperties[] = [
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://example.com/hooks/appointments',
		description: 'Callback address the service posts notifications to',
		hint: 'The service only accepts HTTPS callback URLs',
	},
	...eventFields(
		'Events the webhook receives',
		'Further event names, comma-separated, for events the list above does not offer (the service documents only three)',
	),
];

const timeZoneOption: INodeProperties = {
	displayName: 'Time Zone',
	name: 'timeZone',
	type: 'string',
	default: '',
	placeholder: 'e.g. America/Santiago',
	description:
		"The time zone of dates given without one, such as Europe/Berlin; empty means the workflow's",
};

/** The number options' bounds and defaults: what the editor shows is what is accepted, also from an expression. */
export const OPTION_RULES = {
	concurrency: { label: 'Concurrency', fallback: 1, min: 1, max: 20, whole: true },
	maxAttempts: { label: 'Max Attempts', fallback: 5, min: 1, max: 20, whole: true },
	maxRetryWaitSeconds: { label: 'Max Retry Wait (Seconds)', fallback: 60, min: 0 },
	timeoutSeconds: { label: 'Timeout (Seconds)', fallback: 30, min: 0.1, precision: 1 },
} as const;

type NumberRule = { label: string; fallback: number; min: number; max?: number; whole?: boolean };

/** A number option with its rule's label, default and bounds: whole numbers without decimals, else `precision`. */
export function numberOption(
	name: string,
	rule: NumberRule & { precision?: number },
	description: string,
): INodeProperties {
	const { label, fallback, min, max, whole, precision } = rule;
	const digits = whole ? 0 : precision;
	const typeOptions = {
		minValue: min,
		...(max !== undefined && { maxValue: max }),
		...(digits !== undefined && { numberPrecision: digits }),
	};
	return { displayName: label, name, type: 'number', typeOptions, default: fallback, description };
}

const requestSettings: INodeProperties[] = [
	numberOption(
		'concurrency',
		OPTION_RULES.concurrency,
		'How many input items to process at the same time. Output order and pairing stay as in the input.',
	),
	numberOption(
		'maxAttempts',
		OPTION_RULES.maxAttempts,
		"The node's own retries, per request, first attempt included: after 429, 5xx or a failed connection, only where repeating is safe (a create or cancel whose answer was lost is checked, never sent blindly again). n8n's Retry On Fail setting re-runs the whole node after these are spent, so the two multiply; leave it off.",
	),
	numberOption(
		'maxRetryWaitSeconds',
		OPTION_RULES.maxRetryWaitSeconds,
		'Total time one request may wait between its attempts, Retry-After included; a service asking for a longer wait fails at once',
	),
	numberOption(
		'timeoutSeconds',
		OPTION_RULES.timeoutSeconds,
		'Time-out of one attempt, for the whole answer: the headers and the body (which may be at most 64 MB)',
	),
];

/** Plain comparison: localeCompare's first call sets up ICU, which would slow n8n's start-up. */
export const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The "Options" collection every operation has; `timeZone` where the operation reads or writes dates; `extra`: its own. */
export function optionsCollection(
	withTimeZone: boolean,
	extra: INodeProperties[] = [],
): INodeProperties {
	const options = [...requestSettings, ...(withTimeZone ? [timeZoneOption] : []), ...extra];
	return optionsProperty(options.sort((a, b) => byText(a.displayName, b.displayName)));
}
