import type { INodeProperties, INodePropertyMode } from 'n8n-workflow';

import { outputProperties } from '../actions/appointment/output';
import { versionDescription as v3Properties } from '../v3/versionDescription';

/**
 * Version 4's fields are version 3's with Get's and Get Many's Simplify replaced by Output (Simplified, Raw,
 * Selected Fields), and each key typed *By ID*, as n8n's editor labels that mode whatever the node calls it.
 */
function byId(mode: INodePropertyMode): INodePropertyMode {
	return mode.name === 'id' ? { ...mode, displayName: 'By ID' } : mode;
}

function toV4(property: INodeProperties): INodeProperties[] {
	if (property.name === 'simplify') return outputProperties(property.displayOptions);
	if (property.type === 'resourceLocator') return [{ ...property, modes: property.modes?.map(byId) }];
	if (property.name === 'filters' && property.type === 'collection') {
		return [{ ...property, options: (property.options as INodeProperties[]).flatMap(toV4) }];
	}
	return [property];
}

export const versionDescription: INodeProperties[] = v3Properties.flatMap(toV4);
