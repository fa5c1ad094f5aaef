/**
 * What the polling trigger's panel tells a builder: short notices that link the docs, a Lead Time the editor does
 * not silently replace (the poll refuses a bad one by name), and a Fetch Test Event that says it is a sample and
 * when that appointment starts.
 */
import type { INodeProperties } from 'n8n-workflow';

import { AppointmentsPollingTrigger } from '../../nodes/Appointments/AppointmentsPollingTrigger.node';
import { HOUR, MIN, SOON, STARTED, T0, useTimeEvents } from './timeEventsSetup';

const { create, harness, setClock } = useTimeEvents();
const properties = new AppointmentsPollingTrigger().description.properties;
const byName = (name: string) => properties.find((p) => p.name === name) as INodeProperties;

test('each notice is one short sentence or two with a link to the docs', () => {
	const notices = properties.filter((p) => p.type === 'notice');
	expect(notices.map((n) => n.name)).toEqual(['notice', 'timeNotice']);
	for (const notice of notices) {
		const text = notice.displayName.replace(/<a [^>]*>[^<]*<\/a>/, '').trim();
		expect(text.length).toBeLessThan(140);
		expect(notice.displayName).toMatch(
			/<a href="https:\/\/github\.com\/n8n-nodes-appointments\/n8n-nodes-appointments\/blob\/main\/docs\/(triggers\.md#polling-trigger|reminders\.md)" target="_blank">/,
		);
	}
});

test('Lead Time: the editor keeps what was typed (no bounds it would silently apply); the poll refuses -5 and 0 by name', async () => {
	const leadTime = byName('leadTime');
	expect(leadTime.typeOptions?.minValue).toBeUndefined();
	expect(leadTime.typeOptions?.maxValue).toBeUndefined();
	expect(leadTime.hint).toBe('From 1 to 43200 minutes (30 days)');
	for (const bad of [-5, 0]) {
		await expect(harness([SOON], bad).activate()).rejects.toThrow(
			`The field "Lead Time (Minutes)" must be a whole number from 1 to 43200 (got ${bad})`,
		);
		await expect(harness([SOON], bad).manual()).rejects.toThrow('Lead Time (Minutes)');
	}
});

test('Fetch Test Event says its item is a sample and when that appointment starts', async () => {
	await create(T0 + 19 * HOUR);
	await create(T0 - 3 * HOUR);
	const [soon] = (await harness([SOON], 1).manual())!;
	expect(soon.json.sample).toBe(
		'A sample, not an event: an appointment that starts in 19 hours, shown so you can map its fields. Published, the workflow runs Lead Time (1 min) before each start.',
	);
	setClock(T0 + 30 * MIN);
	const [started] = (await harness([STARTED]).manual())!;
	expect(started.json.sample).toMatch(
		/^A sample, not an event: an appointment that started 4 hours ago, .* runs for each real event\.$/,
	);
	const [simplified] = (await harness([SOON], 1, { simplify: true }).manual())!;
	expect(simplified.json).toMatchObject({
		event: SOON,
		sample: expect.stringContaining('starts in 19 hours'),
	});
});
