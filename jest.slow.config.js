/**
 * The slow suites, kept out of `npm test` and run by CI as a step of their own (`npm run test:slow`): the dashboard
 * and mailbox in a real Chromium (test/browser; `npm run test:browser` runs only these) and the sandbox's 60,000-request flood
 * (test/sandbox/flood.test.ts; `npm run test:flood`), and the trigger's re-read time-out, waited for real (4 s, a
 * constant of the node: test/trigger/verifyTimeout.test.ts).
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: [
		'<rootDir>/test/browser/**/*.test.ts',
		'<rootDir>/test/sandbox/flood.test.ts',
		'<rootDir>/test/trigger/verifyTimeout.test.ts',
	],
	transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
	// nodes/ imports its files as ./x.js (explicit, so Node resolves them in one look-up when n8n loads the package)
	moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
	testTimeout: 120000,
	maxWorkers: 1,
};
