/** n8n's queue mode (Postgres, Redis, nginx, webhook processes, workers): `npm run test:queue`. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
	// nodes/ imports its files as ./x.js (explicit, so Node resolves them in one look-up when n8n loads the package)
	moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
	testTimeout: 300000,
	maxWorkers: 1,
};
