/** n8n's queue mode (Postgres, Redis, nginx, webhook processes, workers): `npm run test:queue`. */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
	testTimeout: 300000,
	maxWorkers: 1,
};
