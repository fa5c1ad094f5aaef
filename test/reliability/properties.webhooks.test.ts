/**
 * Property-based bad-input tests (see propertyOracle.ts): Webhook > Create, Update and Delete with random URLs,
 * event lists and keys.
 */
import fc from 'fast-check';

import { EVENTS } from '../../sandbox';
import {
	INVALID,
	ITEMS,
	OMIT,
	RUNS,
	batchOf,
	checkBatch,
	open,
	params,
	usePropertySandbox,
	type FieldCheck,
	type ItemCase,
	type Verdict,
} from './propertyOracle';
import { blank, junkText, nonStrings, type Gen } from './propertyValues';

// A run's items share its operation, so with 8 runs the valid share moves with the mix of operations drawn: 0.24
// with FC_SEED=887089920 (a create/update/delete mix), 0.31 on average; at least one in six is still useful.
const suite = usePropertySandbox(RUNS(8) * ITEMS, {
	valid: 1 / 6,
	invalid: 1 / 5,
	open: 1 / 50,
	sent: 1 / 4,
});

const hostName = fc.oneof(
	fc.domain(),
	fc.constantFrom('localhost', '127.0.0.1', '[::1]', 'xn--nandu-rta.test', 'hooks.test'),
);
const urlValue: fc.Arbitrary<Gen> = fc.oneof(
	{
		weight: 5,
		arbitrary: fc
			.tuple(
				fc.constantFrom('https://', 'HTTPS://', 'https://'),
				hostName,
				fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
				fc.webPath(),
				fc.constantFrom('', '?a=1', '?x=y&z=%20', '#frag'),
				fc.constantFrom('', ' '),
			)
			.map(([s, h, p, path, q, padding]) => ({
				value: `${padding}${s}${h}${p ? ':' + p : ''}${path}${q}${padding}`,
				tag: 'https',
			})),
	},
	{
		weight: 3,
		arbitrary: fc
			.tuple(
				fc.constantFrom(
					'http://',
					'ftp://',
					'ws://',
					'wss://',
					'file://',
					'javascript:',
					'mailto:',
					'//',
					'',
				),
				fc.domain(),
				fc.webPath(),
			)
			.map(([s, h, p]) => ({ value: `${s}${h}${p}`, tag: 'not-https' })),
	},
	{
		weight: 1,
		arbitrary: fc
			.constantFrom('', ' ', 'https://', 'https:// spaced.test/', 'https//x.test', 'https:x')
			.map((v) => ({ value: v, tag: 'broken' })),
	},
	{ weight: 1, arbitrary: nonStrings.map((v) => ({ value: v, tag: 'type' })) },
);
function urlVerdict(g: Gen): Verdict {
	if (g.tag !== 'https' && g.tag !== 'broken') return INVALID;
	let parsed: URL | undefined;
	try {
		parsed = new URL(String(g.value).trim());
	} catch {
		return INVALID;
	}
	if (parsed.protocol !== 'https:' || !parsed.hostname) return INVALID;
	return g.tag === 'https' ? OMIT : open(() => true);
}

const eventName = fc.oneof(
	{ weight: 6, arbitrary: fc.constantFrom(...EVENTS).map((v) => ({ value: v, tag: 'known' })) },
	{
		weight: 1,
		arbitrary: fc
			.stringMatching(/^[a-z]{1,8}\.[a-z_]{1,10}$/)
			.map((v) => ({ value: v, tag: 'dotted' })),
	},
	{
		weight: 1,
		arbitrary: fc
			.constantFrom(
				'created',
				'appointment',
				'.created',
				'appointment.',
				'a..b',
				'appointment created',
			)
			.map((v) => ({ value: v, tag: 'odd' })),
	},
	{
		weight: 1,
		arbitrary: fc.constantFrom(1, null, { e: 1 }, true).map((v) => ({ value: v, tag: 'type' })),
	},
);
const eventsValue = fc.record({
	picked: fc.array(eventName, { maxLength: 4 }),
	other: fc.array(
		fc.oneof(
			{ weight: 3, arbitrary: eventName.filter((e) => typeof e.value === 'string') },
			{ weight: 1, arbitrary: blank.map((v) => ({ value: v, tag: 'blank' })) },
		),
		{ maxLength: 3 },
	),
	sep: fc.constantFrom(',', ', ', ' , '),
});
type EventsGen = { picked: Gen[]; other: Gen[]; sep: string };
/** The events the subscription must end up with, or why the item is invalid/open. */
function eventsVerdict(g: EventsGen): { events?: string[]; verdict: Verdict } {
	const names: string[] = [];
	let openItem = false;
	for (const e of [...g.picked, ...g.other]) {
		if (e.tag === 'blank') continue;
		if (e.tag === 'type') return { verdict: INVALID };
		if (e.tag === 'odd') openItem = true;
		const name = String(e.value).trim();
		if (name !== '' && !names.includes(name)) names.push(name);
	}
	if (names.length === 0) return { verdict: INVALID };
	if (openItem) return { verdict: open(() => true) };
	return { events: names, verdict: OMIT };
}

describe('Webhook > Create, Update, Delete with random URLs, events and keys', () => {
	it('each item: exactly the spec request, or an error naming the field', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom('create', 'update', 'delete'),
				batchOf(
					fc.record({
						url: urlValue,
						events: eventsValue,
						key: fc.oneof(
							{ weight: 3, arbitrary: fc.constant('existing') },
							{ weight: 2, arbitrary: junkText },
							{ weight: 1, arbitrary: blank },
						),
					}),
				),
				async (operation, items) => {
					await suite.sb.reset(50, 21);
					const existing = (
						await suite.sb.api('POST', 'webhooks/', {
							url: 'https://hooks.test/existing',
							events: ['appointment.created'],
						})
					).body.webhook_key as string;
					const parameters: Record<string, unknown> = {
						resource: 'webhook',
						operation,
						options: {},
					};
					if (operation !== 'delete')
						Object.assign(parameters, {
							url: '={{ $json.url }}',
							events: '={{ $json.picked }}',
							otherEvents: '={{ $json.other }}',
						});
					if (operation !== 'create') parameters.webhookKey = '={{ $json.key }}';
					const batch: ItemCase[] = items.map((it) => {
						const key = it.key === 'existing' ? existing : it.key;
						const fields: FieldCheck[] = [];
						let verifyOutput: ItemCase['verifyOutput'];
						// '.' and '..' can be no key (they are path segments): refusing them is fine, naming the field
						// a key that would be a path segment of its own ('.', '..') or more than one ('/', '\\'): refusing it is fine
						const pathLike = ['.', '..'].includes(key.trim()) || /[/\\]/.test(key);
						if (operation !== 'create')
							fields.push({
								label: 'Webhook',
								verdict: key.trim() === '' ? INVALID : pathLike ? open(() => true) : OMIT,
							});
						if (operation !== 'delete') {
							const ev = eventsVerdict(it.events);
							fields.push({ label: 'URL', verdict: urlVerdict(it.url) });
							fields.push({ label: 'Events', verdict: ev.verdict });
							verifyOutput = (out) => {
								const w = out[0];
								if (w?.url !== String(it.url.value).trim())
									throw new Error(`subscription url ${w?.url}`);
								if (
									ev.events &&
									JSON.stringify([...(w.events as string[])].sort()) !==
										JSON.stringify([...ev.events].sort())
								)
									throw new Error(
										`subscription events ${JSON.stringify(w.events)}, expected ${JSON.stringify(ev.events)}`,
									);
							};
						}
						const other = it.events.other.map((e) => String(e.value)).join(it.events.sep);
						return {
							json: { url: it.url.value, picked: it.events.picked.map((e) => e.value), other, key },
							fields,
							verifyOutput,
						};
					});
					const method = { create: 'POST', update: 'PUT', delete: 'DELETE' }[operation]!;
					await checkBatch(parameters, batch, {
						method,
						listFirst: operation === 'update' ? undefined : '/api/v3/webhooks/',
						path: (c) =>
							operation === 'create'
								? '/api/v3/webhooks/'
								: (path: string) => {
										const m = /^\/api\/v3\/webhooks\/([^/]+)\/$/.exec(path);
										if (!m) return false;
										// the sandbox logs the path decoded once
										const key = String(c.json.key).trim();
										if (m[1] === key) return true;
										try {
											return decodeURIComponent(m[1]) === key;
										} catch {
											return false;
										}
									},
						// unknown event names (the service knows three), keys nobody has, a subscription deleted earlier in the batch
						apiErrorAllowed: (message) =>
							/not found|The service rejected the request/.test(message),
					});
				},
			),
			{ ...params, numRuns: RUNS(8) },
		);
	});
});
