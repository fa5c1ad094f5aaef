/**
 * The package on every n8n version of docs/compatibility.md (`npm run test:compat` runs this config once per
 * version with N8N_DEV_VERSION set; scripts/compat.ts).
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/compat'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
	globalSetup: '<rootDir>/test/helpers/buildOnce.ts',
	testTimeout: 300000,
	maxWorkers: 1,
};
