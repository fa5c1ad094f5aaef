/**
 * Property-based bad-input tests (see propertyOracle.ts): Appointment > Get, Update Status, Cancel and Reschedule
 * with random keys, statuses, send-email switches, and dates in many formats and zones.
 */
import fc from 'fast-check';
import { DateTime } from 'luxon';

import {
	INVALID,
	ITEMS,
	OMIT,
	RUNS,
	batchOf,
	checkBatch,
	dateExpr,
	open,
	params,
	usePropertySandbox,
	type FieldCheck,
	type ItemCase,
} from './propertyOracle';
import {
	WORKFLOW_ZONE,
	blankDate,
	boolValue,
	boolVerdict,
	dateValue,
	instantOf,
	isBlankDate,
	sameUuid,
	statusValue,
	statusVerdict,
	uuidValue,
	uuidVerdict,
	zoneOf,
	zoneValue,
	type DateGen,
} from './propertyValues';

const suite = usePropertySandbox(RUNS(12) * ITEMS);

const keyOps = fc.constantFrom('get', 'updateStatus', 'cancel', 'reschedule');

describe('Appointment > Get, Update Status, Cancel, Reschedule with random keys, statuses, flags and dates', () => {
	it('each item: exactly the spec request, or an error naming the field', async () => {
		await fc.assert(
			fc.asyncProperty(
				keyOps,
				fc.boolean(),
				batchOf(
					fc.record({
						key: uuidValue(suite.keys),
						status: statusValue,
						sendEmail: boolValue,
						startDate: fc.oneof(
							{ weight: 8, arbitrary: dateValue },
							{ weight: 1, arbitrary: blankDate },
						),
						tz: zoneValue,
					}),
				),
				async (operation, withZone, items) => {
					await suite.sb.reset(50, 21);
					const parameters: Record<string, unknown> = {
						resource: 'appointment',
						operation,
						appointmentKey: '={{ $json.key }}',
						options: {},
					};
					if (operation === 'updateStatus') parameters.status = '={{ $json.status }}';
					if (operation === 'cancel') parameters.sendEmail = '={{ $json.sendEmail }}';
					if (operation === 'reschedule') {
						parameters.startDate = dateExpr('startDate');
						if (withZone) parameters.options = { timeZone: '={{ $json.tz }}' };
					}
					const batch: ItemCase[] = items.map((it) => {
						const fields: FieldCheck[] = [
							{ label: 'Appointment', verdict: uuidVerdict(it.key, true) },
						];
						let verifyOutput: ItemCase['verifyOutput'];
						if (operation === 'updateStatus') {
							fields.push({ label: 'Status', verdict: statusVerdict(it.status, true) });
							verifyOutput = (out) => {
								if (out[0]?.status !== String(it.status.value).trim().toUpperCase())
									throw new Error(`status is ${out[0]?.status}`);
							};
						}
						if (operation === 'cancel') {
							const v = boolVerdict(it.sendEmail);
							fields.push({ label: 'Send Email to Client', param: 'send_email', verdict: v });
						}
						if (operation === 'reschedule') {
							const zone = withZone ? zoneOf(it.tz) : WORKFLOW_ZONE;
							if (zone === undefined) fields.push({ label: 'Time Zone', verdict: INVALID });
							else if (isBlankDate(it.startDate))
								fields.push({ label: 'New Start', verdict: INVALID });
							else {
								const instant = instantOf(it.startDate as DateGen, zone);
								if (instant === 'invalid') fields.push({ label: 'New Start', verdict: INVALID });
								else {
									const open_ =
										it.startDate.tag === 'date-only' ||
										it.startDate.tag === 'sql' ||
										it.startDate.tag === 'iso-basic' ||
										it.startDate.tag === 'rfc2822' ||
										it.startDate.tag === 'epoch-ms';
									fields.push({ label: 'New Start', verdict: open_ ? open(() => true) : OMIT });
									const want =
										instant === 'open-midnight'
											? DateTime.fromISO(String(it.startDate.value), { zone }).toMillis()
											: instant!;
									verifyOutput = (out) => {
										const got = DateTime.fromISO(String(out[0]?.start_date), { setZone: true });
										if (got.toMillis() !== want)
											throw new Error(
												`start_date ${out[0]?.start_date}, expected ${new Date(want).toISOString()}`,
											);
									};
								}
							}
						}
						return {
							json: {
								key: it.key.value,
								status: it.status.value,
								sendEmail: it.sendEmail.value,
								startDate: it.startDate.value,
								tz: it.tz,
							},
							fields,
							verifyOutput,
						};
					});
					const method = {
						get: 'GET',
						updateStatus: 'PATCH',
						cancel: 'DELETE',
						reschedule: 'PATCH',
					}[operation];
					await checkBatch(parameters, batch, {
						method,
						readFirst: operation === 'cancel',
						path: (c) => (path: string) => {
							const key = String(c.json.key).trim();
							const m = /^\/api\/v3\/appointments\/([^/]+)\/(reschedule\/)?$/.exec(path);
							return !!m && sameUuid(m[1], key) && !!m[2] === (operation === 'reschedule');
						},
						// a well-formed key nobody has, a move the service does not allow, an already cancelled appointment
						apiErrorAllowed: (message) =>
							/not found|The service rejected the request|The service answered 4\d\d/.test(message),
					});
				},
			),
			{ ...params, numRuns: RUNS(12) },
		);
	});
});
