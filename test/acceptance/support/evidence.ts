import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { World } from './world';

/**
 * Where a secret could leak to: a data-only dump of the world's database, and the logs of its service
 * processes (the simulator, which plays WeChat and knows the secrets, is left out).
 */
export function leakEvidence(world: World): { dump: string; logs: string[] } {
  const dump = execFileSync('pg_dump', ['--data-only', '--no-owner', world.databaseUrl], {
    maxBuffer: 256 << 20,
  }).toString();
  const logs = world
    .logFiles()
    .filter((f) => !f.endsWith('-simulator.log'))
    .map((f) => readFileSync(f, 'utf8'));
  return { dump, logs };
}
