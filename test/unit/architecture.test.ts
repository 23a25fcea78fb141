import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/*
 * docs/ARCHITECTURE.md's "Layers and imports" table is the input of this test: each row names a module,
 * its layer, its files and what it may import. Every import in src/ (type-only and dynamic ones too; the
 * files are read as text) is checked against it, so the document cannot drift from the tree.
 */

const ROOT = resolve(__dirname, '../..');
const DOC = 'docs/ARCHITECTURE.md';
const SECTION = '## Layers and imports';

interface Rule {
  readonly layer: number;
  readonly module: string;
  /** Repository paths: a folder ends with `/`. */
  readonly files: readonly string[];
  /** Modules it may import; `everything` for the composition roots. */
  readonly modules: readonly string[] | 'everything';
  /** Packages it may import; empty when any package may be. */
  readonly packages: readonly string[];
}

/** One import: the importing file and line, and what it names (a repository path without extension, or a package). */
interface Import {
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly local: boolean;
}

const SPECIFIERS = [
  /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*['"]([^'"]+)['"]/g,
  /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
];

/** Reads the table of `SECTION` in `markdown`. */
function parseRules(markdown: string): Rule[] {
  const at = markdown.indexOf(SECTION);
  if (at < 0) throw new Error(`${DOC} has no "${SECTION}" section`);
  const rows = markdown
    .slice(at)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  const [header, , ...body] = rows;
  expect(header).toEqual(['layer', 'module', 'files', 'may import']);
  return body.map(([layer, module, files, mayImport]) => {
    const names = mayImport === '—' ? [] : mayImport.split(',').map((n) => n.trim());
    return {
      layer: Number(layer),
      module,
      files: [...files.matchAll(/`([^`]+)`/g)].map((m) => m[1]),
      modules: mayImport === 'everything' ? 'everything' : names.filter((n) => !n.startsWith('`')),
      packages: names.filter((n) => n.startsWith('`')).map((n) => n.slice(1, -1)),
    };
  });
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const from = relative(ROOT, file).split('\\').join('/');
  return SPECIFIERS.flatMap((pattern) =>
    [...text.matchAll(pattern)].map((m): Import => {
      const line = text.slice(0, m.index).split('\n').length;
      const specifier = m[1];
      if (!specifier.startsWith('.')) return { file: from, line, target: specifier, local: false };
      const target = relative(ROOT, resolve(dirname(file), specifier))
        .split('\\')
        .join('/')
        .replace(/\.(?:js|ts)$/, '');
      return { file: from, line, target, local: true };
    }),
  );
}

/** The module a repository path belongs to (`src/x/…` or `src/x.ts`), or undefined when no row lists it. */
function moduleOf(rules: readonly Rule[], path: string): string | undefined {
  const candidates = [path, `${path}.ts`, `${path}/index.ts`];
  return rules.find((r) =>
    r.files.some((f) => candidates.some((c) => (f.endsWith('/') ? c.startsWith(f) : c === f))),
  )?.module;
}

/** The package an import names (`node:fs/promises` → `node:fs`, `@scope/pkg/x` → `@scope/pkg`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  if (specifier.startsWith('@')) return parts.slice(0, 2).join('/');
  return parts[0];
}

/** What breaks the rules: each as `file:line` and why. */
function violations(rules: readonly Rule[], imports: readonly Import[]): string[] {
  const byModule = new Map(rules.map((r) => [r.module, r]));
  return imports.flatMap(({ file, line, target, local }) => {
    const from = moduleOf(rules, file);
    const rule = from === undefined ? undefined : byModule.get(from);
    if (!rule) return [];
    if (!local) {
      const pkg = packageOf(target);
      return rule.packages.length === 0 || rule.packages.includes(pkg)
        ? []
        : [`${file}:${line}: ${rule.module} may not import the package ${pkg}`];
    }
    const to = moduleOf(rules, target);
    if (to === undefined) return [`${file}:${line}: ${target} belongs to no module of ${DOC}`];
    if (to === rule.module || rule.modules === 'everything' || rule.modules.includes(to)) return [];
    return [`${file}:${line}: ${rule.module} may not import ${to} (${target})`];
  });
}

/** Folders and top-level files of `src/` that no row lists. */
function unlisted(
  rules: readonly Rule[],
  entries: readonly { name: string; isDirectory: boolean }[],
): string[] {
  return entries
    .filter((e) => e.isDirectory || e.name.endsWith('.ts'))
    .map((e) => (e.isDirectory ? `src/${e.name}/` : `src/${e.name}`))
    .filter((path) => !rules.some((r) => r.files.includes(path)));
}

/** Groups of modules that import each other (strongly connected components of more than one module). */
function cycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      group.push(w);
    } while (w !== v);
    if (group.length > 1) found.push(group.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The modules each module imports, from the imports as they are. */
function moduleGraph(rules: readonly Rule[], imports: readonly Import[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const { file, target, local } of imports) {
    const [from, to] = [moduleOf(rules, file), local ? moduleOf(rules, target) : undefined];
    if (from === undefined || to === undefined || from === to) continue;
    if (!edges.has(from)) edges.set(from, new Set());
    edges.get(from)!.add(to);
  }
  return edges;
}

const rules = parseRules(readFileSync(join(ROOT, DOC), 'utf8'));
const imports = sourceFiles(join(ROOT, 'src')).flatMap(importsOf);

describe(`the import rules of ${DOC}`, () => {
  it('reads every row and finds the imports it checks (multi-line and type-only ones too)', () => {
    expect(rules.map((r) => r.module)).toEqual(
      expect.arrayContaining(['main', 'store', 'policy', 'simulator']),
    );
    expect(rules.find((r) => r.module === 'contract')).toMatchObject({ modules: [], packages: ['zod'] });
    expect(imports).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: 'src/webhook/process-push.ts', target: 'src/sequences/enroll' }),
        expect.objectContaining({ file: 'src/webhook/process-push.ts', target: 'src/broker/publisher' }),
        expect.objectContaining({ file: 'src/store/insert-messages.ts', target: 'src/db/pool' }),
      ]),
    );
  });

  it('is a layering: a module may import only listed modules of a lower layer', () => {
    const layerOf = new Map(rules.map((r) => [r.module, r.layer]));
    const wrong = rules.flatMap((r) =>
      r.modules === 'everything'
        ? []
        : r.modules
            .filter((m) => !((layerOf.get(m) ?? Infinity) < r.layer))
            .map(
              (m) => `${r.module} (layer ${r.layer}) may import ${m} (layer ${layerOf.get(m) ?? 'unlisted'})`,
            ),
    );
    expect(wrong).toEqual([]);
    expect(rules.filter((r) => Number.isNaN(r.layer) || r.files.length === 0)).toEqual([]);
  });

  it('lists every folder and top-level file of src/', () => {
    const entries = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).map((e) => ({
      name: e.name,
      isDirectory: e.isDirectory(),
    }));
    expect(unlisted(rules, entries)).toEqual([]);
  });

  it('allows every import in src/', () => {
    expect(violations(rules, imports)).toEqual([]);
  });

  it('finds no import cycle between modules', () => {
    expect(cycles(moduleGraph(rules, imports))).toEqual([]);
  });
});

describe('the import checker', () => {
  const table = [
    SECTION,
    '',
    '| layer | module | files | may import |',
    '| --- | --- | --- | --- |',
    '| 2 | http | `src/http/` | store |',
    '| 1 | store | `src/store/` | `pg` |',
    '| 0 | errors | `src/errors.ts` | — |',
  ].join('\n');
  const sample = parseRules(table);
  const at = (file: string, target: string, local = true): Import => ({ file, line: 7, target, local });

  it('names the file and line of an upward import, a package not listed, and a path of no module', () => {
    expect(
      violations(sample, [
        at('src/http/a.ts', 'src/store/b'),
        at('src/store/b.ts', 'src/http/a'),
        at('src/store/b.ts', 'pg', false),
        at('src/store/b.ts', 'node:fs/promises', false),
        at('src/http/a.ts', 'express', false),
        at('src/http/a.ts', 'src/policy/rules'),
        at('src/errors.ts', 'src/store'),
      ]),
    ).toEqual([
      'src/store/b.ts:7: store may not import http (src/http/a)',
      'src/store/b.ts:7: store may not import the package node:fs',
      'src/http/a.ts:7: src/policy/rules belongs to no module of docs/ARCHITECTURE.md',
      'src/errors.ts:7: errors may not import store (src/store)',
    ]);
  });

  it('names a folder or top-level file that no row lists', () => {
    expect(
      unlisted(sample, [
        { name: 'http', isDirectory: true },
        { name: 'policy', isDirectory: true },
        { name: 'errors.ts', isDirectory: false },
        { name: 'retry.ts', isDirectory: false },
      ]),
    ).toEqual(['src/policy/', 'src/retry.ts']);
  });

  it('finds the modules that import each other, however far round', () => {
    const graph = moduleGraph(
      [...sample, { layer: 0, module: 'db', files: ['src/db/'], modules: [], packages: [] }],
      [at('src/http/a.ts', 'src/store/b'), at('src/store/b.ts', 'src/db/c'), at('src/db/c.ts', 'src/http/a')],
    );
    expect(cycles(graph)).toEqual([['db', 'http', 'store']]);
    expect(cycles(moduleGraph(sample, [at('src/http/a.ts', 'src/store/b')]))).toEqual([]);
  });
});
