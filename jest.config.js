/**
 * Unit and integration tests (run by `npm test`). The real-n8n suites have their own configs: jest.e2e.config.js,
 * jest.queue.config.js, jest.compat.config.js; the browser tests, the sandbox's flood and the trigger's re-read time-out:
 * jest.slow.config.js.
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: [
		'/node_modules/',
		'<rootDir>/test/e2e/',
		'<rootDir>/test/queue/',
		'<rootDir>/test/compat/',
		'<rootDir>/test/browser/',
		'<rootDir>/test/sandbox/flood.test.ts',
		'<rootDir>/test/trigger/verifyTimeout.test.ts',
	],
	transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
	// nodes/ imports its files as ./x.js (explicit, so Node resolves them in one look-up when n8n loads the package)
	moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
	testTimeout: 60000,
	maxWorkers: 2,
};
