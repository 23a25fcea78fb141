import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/*
 * The simulator is the referee of the service's WeChat code, so it must not reuse that code: from the
 * service it may take only the message schemas and generic plumbing. The files are read as text so
 * that `import type` and dynamic imports count too.
 */

const ROOT = resolve(__dirname, '../../..');
const SIMULATOR = join(ROOT, 'src/simulator');
/** The one module of src/wechat the simulator may share: the shapes of the messages themselves. */
const SHARED_WECHAT = new Set(['src/wechat/message-schema']);
/** Service modules that carry no WeChat logic. */
const PLUMBING = new Set(['src/logger', 'src/errors', 'src/shutdown', 'src/env']);

const SPECIFIERS = [
  /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*['"]([^'"]+)['"]/g,
  /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module `file` imports, as a repository path without extension; packages are left out. */
function localImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = SPECIFIERS.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1]));
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) =>
      relative(ROOT, resolve(dirname(file), s))
        .split('\\')
        .join('/')
        .replace(/\.(?:js|ts)$/, ''),
    );
}

const imports = sourceFiles(SIMULATOR).flatMap((file) =>
  localImports(file).map((target) => ({ from: relative(ROOT, file), target })),
);

describe('the simulator as a referee', () => {
  it('finds the imports it checks (multi-line and type-only ones too)', () => {
    expect(imports).toEqual(
      expect.arrayContaining([
        { from: 'src/simulator/pushes.ts', target: 'src/simulator/push-format' },
        { from: 'src/simulator/pushes.ts', target: 'src/logger' },
      ]),
    );
  });

  it('imports nothing from src/wechat but the message schemas', () => {
    const offending = imports.filter(
      ({ target }) => target.startsWith('src/wechat/') && !SHARED_WECHAT.has(target),
    );
    expect(offending).toEqual([]);
  });

  it('takes nothing else from the service but generic plumbing', () => {
    const outside = imports.filter(
      ({ target }) =>
        !target.startsWith('src/simulator/') && !SHARED_WECHAT.has(target) && !PLUMBING.has(target),
    );
    expect(outside).toEqual([]);
  });
});
