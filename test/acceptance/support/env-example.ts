import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The variables `.env.example` sets, as `make run` would load them into a shell (`set -a; . ./.env`):
 * `KEY=value` lines, single-quoted values unquoted, comments and commented-out defaults skipped.
 */
export function envExample(): Record<string, string> {
  const text = readFileSync(path.resolve(__dirname, '../../../.env.example'), 'utf8');
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (!m) continue;
    const value = m[2];
    env[m[1]] = value.startsWith("'") && value.endsWith("'") ? value.slice(1, -1) : value;
  }
  return env;
}
