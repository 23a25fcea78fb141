/** Three projects: unit (pure, no I/O), integration (real Postgres + RabbitMQ), e2e (browser, later). */
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
  ],
};
