import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readServiceStamps, restartedServices, type ServiceStamps } from '../helpers/service-stamps';

/**
 * `make test` reads when the machine's own Postgres and RabbitMQ started (scripts/service-stamps.js, to
 * test-artifacts/service-stamps.json) before its first test, and runs this file after its last: no test
 * may stop, restart or reconfigure a server it did not start (the fault suite starts private ones).
 */
const FILE = path.resolve(__dirname, '../../test-artifacts/service-stamps.json');
const recorded = existsSync(FILE);
if (!recorded) console.info(`start-time check skipped: no ${FILE} (make test writes it before the suite)`);

describe('the machine’s own Postgres and RabbitMQ', () => {
  (recorded ? it : it.skip)('run as they ran before the suite: neither stopped nor restarted', async () => {
    const before = JSON.parse(readFileSync(FILE, 'utf8')) as ServiceStamps;
    expect(restartedServices(before, await readServiceStamps())).toEqual([]);
  });
});
