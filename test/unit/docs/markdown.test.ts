import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// The README and docs/ are read from the outside too: their links must resolve, and every acceptance test
// is named after a section of them (STYLE.md: "named after the README section it proves"; the reference
// now lives in docs/, so a section of either counts).
const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced code blocks, line by line (a fence's lines become empty). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** A heading's text as GitHub shows it: code spans and links reduced to their text. */
const headingText = (raw: string) =>
  raw
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim();

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(markdown)) {
    const m = /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const base = headingText(m[1])
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The names of a document's sections: its headings (and their part before ": "), and bold lead-ins. */
function sectionsOf(markdown: string): Set<string> {
  const names = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6} (.+)$/.exec(line);
    const lead = /^(?:- )?\*\*(.+?)\*\*/.exec(line);
    const name = heading ? headingText(heading[1]) : lead ? lead[1].replace(/[.:]$/, '') : undefined;
    if (name === undefined) continue;
    names.add(name);
    if (name.includes(': ')) names.add(name.slice(0, name.indexOf(': ')));
  }
  return names;
}

describe('the links of README.md and docs/', () => {
  const links = DOCS.flatMap((file) =>
    prose(read(file)).flatMap((line, i) =>
      [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => ({
        file,
        line: i + 1,
        target: m[1],
      })),
    ),
  );

  it('finds links to check', () => {
    expect(links.length).toBeGreaterThan(50);
  });

  it.each(DOCS)('every relative link and anchor in %s resolves', (file) => {
    const broken = links
      .filter((l) => l.file === file && !/^[a-z]+:/.test(l.target))
      .filter(({ target }) => {
        const [pathPart, anchor] = target.split('#');
        const resolved = pathPart === '' ? file : path.join(path.dirname(file), decodeURI(pathPart));
        if (!existsSync(path.join(ROOT, resolved))) return true;
        if (anchor === undefined) return false;
        if (statSync(path.join(ROOT, resolved)).isDirectory() || !resolved.endsWith('.md')) return true;
        return !anchorsOf(read(resolved)).has(decodeURIComponent(anchor));
      })
      .map(({ line, target }) => `${file}:${line} → ${target}`);
    expect(broken).toEqual([]);
  });
});

describe('the acceptance tests, named after the sections they prove', () => {
  const sections = new Map(DOCS.map((file) => [file, sectionsOf(read(file))]));
  const everywhere = new Set([...sections.values()].flatMap((s) => [...s]));
  const dir = path.join(ROOT, 'test/acceptance');
  const files = readdirSync(dir).filter((f) => f.endsWith('.test.ts'));
  const isSection = (title: string, names: Set<string>) =>
    names.has(title) || (title.includes(': ') && names.has(title.slice(0, title.indexOf(': '))));

  it.each(files)('%s: each top-level describe names a section of README.md or docs/', (file) => {
    const titles = [...readFileSync(path.join(dir, file), 'utf8').matchAll(/^describe\((['"])(.+?)\1/gm)].map(
      (m) => m[2],
    );
    expect(titles.length).toBeGreaterThan(0);
    expect(titles.filter((t) => !isSection(t, everywhere))).toEqual([]);
  });

  it('every section an acceptance file cites (README "…", docs/x.md "…") is a section of that document', () => {
    const sources = [
      ...files.map((f) => path.join(dir, f)),
      ...readdirSync(path.join(dir, 'support')).map((f) => path.join(dir, 'support', f)),
    ];
    const wrong = sources.flatMap((source) =>
      [...readFileSync(source, 'utf8').matchAll(/\b(README|docs\/[\w.-]+\.md) "([^"]+)"/g)]
        .filter(
          ([, doc, name]) =>
            !isSection(name, sections.get(doc === 'README' ? 'README.md' : doc) ?? new Set()),
        )
        .map(([cited]) => `${path.relative(ROOT, source)}: ${cited}`),
    );
    expect(wrong).toEqual([]);
  });
});
