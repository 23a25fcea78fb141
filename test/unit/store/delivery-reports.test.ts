import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DELIVERY_REPORTS } from '../../../src/store/template-reports';

// Found by name, not number: a merge may renumber it.
const DIR = path.join(__dirname, '../../../src/db/migrations');
const MIGRATION = path.join(
  DIR,
  readdirSync(DIR).find((f) => f.endsWith('_template_delivery_reports.sql'))!,
);

describe('DELIVERY_REPORTS', () => {
  it('are exactly the values the delivery_report column’s CHECK allows', () => {
    const check = /CHECK \(delivery_report IN \(([^)]*)\)\)/.exec(readFileSync(MIGRATION, 'utf8'));
    const allowed = check?.[1].split(',').map((v) => v.trim().replace(/^'|'$/g, ''));
    expect(allowed).toEqual(Object.values(DELIVERY_REPORTS));
  });
});
