/**
 * The package on every n8n version of docs/compatibility.md (`npm run test:compat` runs this config once per
 * version with N8N_DEV_VERSION set; scripts/compat.ts).
 * Two workers: the files mostly wait (n8n starts, the scheduler's minute, polls), each on its own ports and user
 * folder; the durable scheduler's file first, beside the others (test/helpers/clockFirst.js).
 */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/compat'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
	// nodes/ imports its files as ./x.js (explicit, so Node resolves them in one look-up when n8n loads the package)
	moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
	globalSetup: '<rootDir>/test/helpers/buildOnce.ts',
	testSequencer: '<rootDir>/test/helpers/clockFirst.js',
	testTimeout: 300000,
	maxWorkers: 2,
};
