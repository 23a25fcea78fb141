import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { onPath } from './path';

const ROOT = resolve(__dirname, '../..');

/** Turns YAML into JSON with Python's PyYAML, a dependency of Debian's docker-compose. */
export function yamlToJson(text: string): unknown {
  const out = spawnSync(
    'python3',
    ['-c', 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'],
    { input: text, encoding: 'utf8' },
  );
  if (out.status !== 0) throw new Error(`YAML parse failed: ${out.stderr}`);
  return JSON.parse(out.stdout);
}

export const hasPyYaml = (): boolean => spawnSync('python3', ['-c', 'import yaml']).status === 0;

/** Installs promtool (scripts/ensure-promtool.sh) when missing; why it is still missing, or null. */
export function ensurePromtool(): string | null {
  if (onPath('promtool')) return null;
  const out = spawnSync('bash', [join(ROOT, 'scripts/ensure-promtool.sh')], { timeout: 300_000 });
  return out.status === 0 && onPath('promtool')
    ? null
    : 'promtool (Debian package prometheus) is missing and could not be installed';
}

/**
 * In CI (CI set, as CI services do) a missing tool fails the checks that need it: there they must run.
 * Elsewhere those checks are reported as skipped, with the reason printed once (naming `file`) — never
 * passed.
 */
export function requiring(missing: string | null, file: string): jest.It {
  if (!missing || process.env.CI) return it;
  console.warn(`${file}: SKIPPING checks: ${missing}`);
  return it.skip;
}
