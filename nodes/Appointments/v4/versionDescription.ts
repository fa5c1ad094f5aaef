import type { INodeProperties, INodePropertyMode } from 'n8n-workflow';

import { outputProperties } from '../actions/appointment/output.js';
import { versionDescription as v3Properties } from '../v3/versionDescription.js';

const RETRY_KNOBS = ['maxAttempts', 'maxRetryWaitSeconds'];

/**
 * Version 4's fields are version 3's with Get's and Get Many's Simplify replaced by Output (Simplified, Raw,
 * Selected Fields), each key typed *By ID*, as n8n's editor labels that mode whatever the node calls it, and
 * without Max Attempts and Max Retry Wait: n8n's Retry On Fail is the retry knob (actions/router.ts).
 */
function byId(mode: INodePropertyMode): INodePropertyMode {
	return mode.name === 'id' ? { ...mode, displayName: 'By ID' } : mode;
}

function toV4(property: INodeProperties): INodeProperties[] {
	if (RETRY_KNOBS.includes(property.name)) return [];
	if (property.name === 'simplify') return outputProperties(property.displayOptions);
	if (property.type === 'resourceLocator')
		return [{ ...property, modes: property.modes?.map(byId) }];
	if (property.type !== 'collection') return [property];
	const options = (property.options as INodeProperties[]).flatMap(toV4);
	if (property.name !== 'advanced') return [{ ...property, options }];
	const description =
		"Settings that rarely need changing. To try again after a failure, turn on Retry On Fail in the node's settings";
	return [{ ...property, description, options }];
}

export const versionDescription: INodeProperties[] = v3Properties.flatMap(toV4);
