import type { INodeProperties } from 'n8n-workflow';

import { calendarLocator } from '../shared/calendar.js';
import { versionDescription as v2Properties } from '../v2/versionDescription.js';

/**
 * Version 3's fields are version 2's with the expert knobs moved from Options (left with Time Zone where dates are
 * read) into one Advanced collection, each described in one sentence, their defaults unchanged; Get Many's Calendar
 * filter a resource locator; and the keys no record shows saying where to find them.
 */
const DESCRIPTIONS: Record<string, string> = {
	concurrency:
		'How many input items are sent to the service at the same time; the output keeps the input order',
	maxAttempts:
		"How many times one request is tried when the service is busy or unreachable; n8n's Retry On Fail setting re-runs the whole node after that",
	maxRetryWaitSeconds: 'The longest one request waits in total between its attempts',
	pageConcurrency: 'How many pages of results are read at the same time when the service allows it',
	timeoutSeconds: 'How long one attempt may take before it counts as failed',
	clientKey:
		"Only appointments of this client, by the client's key (a UUID) from the service's dashboard; appointments do not show it",
	personKey:
		"Only appointments of this person, by the person's key (a UUID) from the service's dashboard; appointments do not show it",
	serviceKeys:
		"Only appointments of these services: their keys (UUIDs) from the service's dashboard, separated by commas",
	tagKeys:
		"Only appointments with these tags: their keys (UUIDs) from the service's dashboard, separated by commas",
};

/** An option of a collection (Options, Filters) as version 3 shows it. */
function v3Option(option: INodeProperties): INodeProperties {
	if (option.name === 'calendarKey')
		return calendarLocator('calendarKey', 'Only appointments of this calendar');
	const description = DESCRIPTIONS[option.name];
	return description === undefined ? option : { ...option, description };
}

function splitOptions(property: INodeProperties, all: INodeProperties[]): INodeProperties[] {
	const kept = all.filter((option) => option.name === 'timeZone');
	const advanced = all.filter((option) => option.name !== 'timeZone');
	const { displayOptions } = property;
	return [
		...(kept.length > 0 ? [{ ...property, options: kept }] : []),
		{
			displayName: 'Advanced',
			name: 'advanced',
			type: 'collection',
			placeholder: 'Add Setting',
			default: {},
			description: 'Settings that rarely need changing: the defaults suit most accounts',
			options: advanced,
			displayOptions,
		},
	];
}

export const versionDescription: INodeProperties[] = v2Properties.flatMap((property) => {
	if (property.type !== 'collection') return [property];
	const options = (property.options as INodeProperties[]).map(v3Option);
	return property.name === 'options' ? splitOptions(property, options) : [{ ...property, options }];
});
