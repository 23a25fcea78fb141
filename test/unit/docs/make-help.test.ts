import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

// `make help` is the newcomer's list of targets: every documented target is on it (test-e2e was not: a
// digit in its name), and it agrees with the README on how long `make bench` takes.
const ROOT = resolve(__dirname, '../../..');
const makefile = readFileSync(resolve(ROOT, 'Makefile'), 'utf8');

describe('make help', () => {
  const help = execFileSync('make', ['-s', 'help'], { cwd: ROOT, encoding: 'utf8' });
  const documented = [...makefile.matchAll(/^([A-Za-z0-9_-]+):[^\n]*## /gm)].map((m) => m[1]);

  it('lists every target the Makefile documents', () => {
    expect(documented).toEqual(expect.arrayContaining(['run', 'demo', 'test', 'test-e2e', 'bench', 'chaos']));
    for (const target of documented) expect(help).toMatch(new RegExp(`^  make ${target} `, 'm'));
  });

  it('says how long make bench takes as the README does', () => {
    const duration = /^ {2}make bench +[^(]*\(([^)]*)\)/m.exec(help)?.[1];
    expect(duration).toMatch(/hours/);
    const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain(`It takes ${duration!.replace(/\s+/g, ' ')}`);
  });
});
