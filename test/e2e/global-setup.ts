import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

/** Newest modification time of the files under `dir` (0 when it does not exist). */
function newest(dir: string): number {
  let latest = 0;
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (entry.isFile())
        latest = Math.max(latest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
    }
  } catch {
    return 0;
  }
  return latest;
}

/**
 * Before the browser tests: Chromium (and a CJK font) installed when missing, and the admin app built
 * when dist/admin is missing or older than admin/ or src/policy (the rules it loads from the server's
 * source) — so `npx jest --selectProjects e2e` tests the current source on a fresh machine too. `make
 * test` has built it already; then this costs a directory walk.
 */
export default function globalSetup(): void {
  execFileSync('bash', [path.join(ROOT, 'scripts/ensure-chromium.sh')], { stdio: 'inherit' });
  const built = newest(path.join(ROOT, 'dist/admin'));
  const source = Math.max(newest(path.join(ROOT, 'admin')), newest(path.join(ROOT, 'src/policy')));
  if (built === 0 || source > built) {
    execFileSync('npm', ['run', '--silent', 'build:admin'], { cwd: ROOT, stdio: 'inherit' });
  }
}
