import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../helpers/free-port';

// `make spine-check` / `make batch-check` with nothing running: a sentence that says what to do, not
// `fetch failed` (and no .env needed to say it).
describe.each(['spine-check.js', 'batch-check.js'])('scripts/%s with nothing running', (script) => {
  it('says to start the service with make run, and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'check-'));
    try {
      const port = String(await freePort());
      const result = spawnSync(process.execPath, [resolve(__dirname, '../../../scripts', script)], {
        cwd: dir,
        env: { PATH: process.env.PATH, HTTP_PORT: port },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(
        `Nothing answers at http://127.0.0.1:${port}: start the service first with \`make run\``,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
