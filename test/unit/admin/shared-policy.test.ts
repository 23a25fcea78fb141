import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../../..');
const ADMIN_SRC = path.join(ROOT, 'admin/src');
const read = (file: string) => readFileSync(file, 'utf8');
const adminFiles = readdirSync(ADMIN_SRC, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ name: f, text: read(path.join(ADMIN_SRC, f)) }));
/** The src/policy files built for the browser (tsconfig.policy.json, which is JSON with comments). */
const browserPolicy: string[] = JSON.parse(
  read(path.join(ROOT, 'tsconfig.policy.json')).replace(/^\/\/.*$/gm, ''),
).files;
const exportsOf = (file: string) =>
  [...read(path.join(ROOT, file)).matchAll(/^export function (\w+)/gm)].map((m) => m[1]);

// The editor's previews follow the API's rules because they run the same modules (src/policy), built for
// the browser into dist/admin/policy/; a copy in admin/src would drift from them unseen.
describe('the admin app and the policy modules', () => {
  it('imports the window rule, the journey’s window plan and the quiet-hours math from src/policy, built for the browser', () => {
    const policyImports = adminFiles.flatMap(({ name, text }) =>
      [...text.matchAll(/from '((?:\.\.?\/)+)policy\/([\w-]+)\.js'/g)].map((m) => ({
        name,
        file: path.relative(ROOT, path.join(ROOT, 'src/policy', `${m[2]}.ts`)),
        depth: m[1],
      })),
    );
    const importers = new Set(policyImports.map((i) => i.name));
    for (const file of [
      'editor/quiet-preview.ts',
      'editor/window-check.ts',
      'editor/journey-aside.ts',
      'pages/sequence-editor.ts',
      'format.ts',
    ])
      expect(importers).toContain(file);
    for (const i of policyImports) {
      // `../policy/x.js` from admin/src/dir/, `./policy/x.js` from admin/src/: dist/admin/policy/x.js.
      expect([i.name, i.depth]).toEqual([i.name, i.name.includes('/') ? '../' : './']);
      expect(browserPolicy).toContain(i.file);
    }
  });

  it('defines none of the policy’s functions again, and does no time-zone or window arithmetic of its own', () => {
    const names = browserPolicy.flatMap(exportsOf);
    expect(names).toEqual(
      expect.arrayContaining([
        'quietHoursEnd',
        'instantOf',
        'stepOutsideWindow',
        'planWindows',
        'windowAnchors',
      ]),
    );
    for (const { name, text } of adminFiles) {
      for (const fn of names)
        expect([name, text]).not.toEqual([name, expect.stringMatching(new RegExp(`function ${fn}\\b`))]);
      expect([name, text]).not.toEqual([name, expect.stringMatching(/Date\.UTC\(|new Intl\.DateTimeFormat/)]);
      expect([name, text]).not.toEqual([name, expect.stringMatching(/[<>]=? *\w+\.(windowMs|count)\b/)]);
    }
  });
});
