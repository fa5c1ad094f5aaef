/** End-to-end tests against a real n8n (run by `npm run test:e2e`). */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
	// nodes/ imports its files as ./x.js (explicit, so Node resolves them in one look-up when n8n loads the package)
	moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
	globalSetup: '<rootDir>/test/helpers/e2eSetup.ts',
	testTimeout: 300000,
	maxWorkers: 1,
};
