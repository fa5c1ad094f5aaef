/**
 * Set-up shared by the behaviour.*.test.ts files: one sandbox per file (seed 30), reset before each test, and the
 * keys of its appointments that are not cancelled (the sandbox refuses status changes of cancelled ones), at least
 * eight of them, handed to `ready` with the sandbox and its admin client.
 */
import { useSandbox, type Admin, type Sandbox } from './helpers';

export function useBehaviourSandbox(
	ready: (started: { sb: Sandbox; admin: Admin; keys: string[] }) => void,
): void {
	let sb: Sandbox;
	let admin: Admin;
	useSandbox({ seed: 30, seedValue: 9 }, (started) => ({ sb, admin } = started));

	beforeEach(async () => {
		await admin.reset();
		const keys = (await admin.appointments())
			.filter((a) => a.is_cancelled !== true)
			.map((a) => String(a.appointment_key));
		expect(keys.length).toBeGreaterThanOrEqual(8);
		ready({ sb, admin, keys });
	});
}
