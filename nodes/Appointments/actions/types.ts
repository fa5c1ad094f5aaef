import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { RequestPolicy } from '../transport/http/credentialInfo.js';

/** What the router reads once per item for every operation. */
export interface ItemContext {
	itemIndex: number;
	options: IDataObject;
	policy: Partial<RequestPolicy>;
	/** The "Time Zone" option, else the workflow's time zone; throws a NodeOperationError when it is not IANA. */
	zone: () => string;
}

/** The requests of one item, built after its input was validated. */
export type PreparedRun = () => Promise<IDataObject | IDataObject[]>;

/**
 * An operation's file exports its fields (`properties`) and this `prepare`: it reads and validates the item's
 * parameters (no I/O, throws NodeOperationError on bad input) and returns the function that sends the requests.
 */
export type PrepareOperation = (this: IExecuteFunctions, item: ItemContext) => PreparedRun;
