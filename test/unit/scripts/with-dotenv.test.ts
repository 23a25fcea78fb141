import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// `npm start` (and migrate, simulator, …) without make: scripts/with-dotenv.js reads .env from the current
// directory, the environment winning, then runs the entry point with its arguments.
const SCRIPT = resolve(__dirname, '../../../scripts/with-dotenv.js');

describe('scripts/with-dotenv.js', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'with-dotenv-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = (env: Record<string, string>) => {
    writeFileSync(
      join(dir, 'entry.js'),
      'console.log(JSON.stringify([process.env.FROM_FILE, process.env.BOTH, process.env.JSONISH, process.argv.slice(2)]))',
    );
    return spawnSync(process.execPath, [SCRIPT, 'entry.js', '--flag'], {
      cwd: dir,
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    });
  };

  it('loads .env, the environment winning, and passes the arguments on', () => {
    writeFileSync(join(dir, '.env'), `FROM_FILE=file\nBOTH=file\nJSONISH='[{"appId":"wx1"}]'\n`);
    const result = run({ BOTH: 'environment' });
    expect(JSON.parse(result.stdout)).toEqual(['file', 'environment', '[{"appId":"wx1"}]', ['--flag']]);
  });

  it('runs without a .env', () => {
    const result = run({ BOTH: 'environment' });
    expect([result.status, JSON.parse(result.stdout)]).toEqual([0, [null, 'environment', null, ['--flag']]]);
  });
});
