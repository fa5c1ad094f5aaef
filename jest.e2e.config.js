/** End-to-end tests against a real n8n (run by `npm run test:e2e`). */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
	globalSetup: '<rootDir>/test/helpers/e2eSetup.ts',
	testTimeout: 300000,
	maxWorkers: 1,
};
