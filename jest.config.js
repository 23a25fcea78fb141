/**
 * Five projects: unit (pure, no I/O), integration (real Postgres + RabbitMQ), faults (the scenarios that
 * stop Postgres or RabbitMQ and kill processes: apart, so that the fast suite never stops a shared
 * service), acceptance (the README's promises, against the built service and simulator as child
 * processes), e2e (the admin app in Chromium).
 */
const transform = { '^.+\\.ts$': 'ts-jest' };
/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30000,
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
    },
    {
      displayName: 'faults',
      testMatch: ['<rootDir>/test/faults/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
    },
    {
      displayName: 'acceptance',
      testMatch: ['<rootDir>/test/acceptance/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
    },
    {
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      // Installs Chromium when missing; builds the admin app when dist/admin is older than admin/.
      globalSetup: '<rootDir>/test/e2e/global-setup.ts',
    },
  ],
};
