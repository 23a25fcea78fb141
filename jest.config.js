/**
 * Seven projects: unit (pure, no I/O), integration (real Postgres + RabbitMQ; each file its own schema,
 * broker prefix and ports, so the files may run in parallel), slow (measurements and tool validations:
 * the 1,000-message end-to-end run, the NDJSON memory check, docker/ checked with docker-compose and
 * promtool), faults (the scenarios that stop Postgres or RabbitMQ and kill processes, on private servers
 * of their own), acceptance (the promises of the README and docs/, against the built service and
 * simulator as child processes), e2e (the admin app in Chromium), and services (run last by `make test`:
 * the machine's own Postgres and RabbitMQ were not restarted). The fast suite is unit + integration;
 * `make test` runs all seven (see its Makefile target for what runs at once).
 */
const transform = { '^.+\\.ts$': 'ts-jest' };
// Browser modules import each other as the browser loads them (`./x.js`, compiled from x.ts): the admin
// app, and src/policy, which the admin app imports as `../policy/x.js` (served from dist/admin/policy/).
const moduleNameMapper = {
  '^(?:\\.{1,2}/)+policy/(.*)\\.js$': '<rootDir>/src/policy/$1',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};
/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30000,
  // Test files run in parallel, three at a time (JEST_WORKERS to change it): integration files wait on
  // timers, the broker and Postgres more than they compute, so three keep two cores busy.
  maxWorkers: Number(process.env.JEST_WORKERS ?? 3),
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      moduleNameMapper,
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      moduleNameMapper,
    },
    {
      displayName: 'slow',
      testMatch: ['<rootDir>/test/slow/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      moduleNameMapper,
    },
    {
      displayName: 'faults',
      testMatch: ['<rootDir>/test/faults/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      moduleNameMapper,
    },
    {
      displayName: 'acceptance',
      testMatch: ['<rootDir>/test/acceptance/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      moduleNameMapper,
    },
    {
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      moduleNameMapper,
      // Installs Chromium when missing; builds the admin app when dist/admin is older than admin/.
      globalSetup: '<rootDir>/test/e2e/global-setup.ts',
    },
    {
      displayName: 'services',
      testMatch: ['<rootDir>/test/services/**/*.test.ts'],
      transform,
      testEnvironment: 'node',
      moduleNameMapper,
    },
  ],
};
