import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.join(__dirname, '../../../src');

/** Where SQL may live: the store layer, and the database plumbing (migrations, transactions). */
const SQL_HOMES = ['store/', 'db/'];

/**
 * An SQL statement in a string (a quote or backtick, then a statement keyword), or a query run with a
 * statement or an SQL constant (`.query(\`…`, `.query(CLAIM_SQL`, `.query<Row>(`). `req.query('nonce')`
 * (an HTTP query parameter) is neither.
 */
const SQL = /[`'"]\s*(SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM|WITH)\s|\.query(<|\(\s*[`A-Z])/;

/** A message status written as a literal in SQL, rather than taken from MESSAGE_STATUS. */
const STATUS_LITERAL = /status\s*(=|<>|!=|IN\s*\()\s*'(?!\$\{)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, full).split(path.sep).join('/')] : [];
  });
}

function read(file: string): string {
  return readFileSync(path.join(SRC, file), 'utf8');
}

describe('the store layer', () => {
  const files = sourceFiles(SRC);

  it('holds every SQL statement: no file outside src/store and src/db runs or writes SQL', () => {
    const outside = files.filter((f) => !SQL_HOMES.some((home) => f.startsWith(home)));
    expect(outside.filter((f) => SQL.test(read(f)))).toEqual([]);
  });

  it('writes no message status as a literal in SQL: statuses come from MESSAGE_STATUS', () => {
    expect(files.filter((f) => STATUS_LITERAL.test(read(f)))).toEqual([]);
  });

  it('recognises what it forbids, and leaves an HTTP query parameter alone', () => {
    expect(SQL.test('await pool.query(`SELECT 1`)')).toBe(true);
    expect(SQL.test('await client.query(CLAIM_SQL, [ids])')).toBe(true);
    expect(SQL.test('const sql = `\n  UPDATE scheduled_messages SET x = 1`')).toBe(true);
    expect(SQL.test("const nonce = req.query('nonce')")).toBe(false);
    expect(STATUS_LITERAL.test("WHERE m.status IN ('pending', 'queued')")).toBe(true);
    expect(STATUS_LITERAL.test("WHERE status = '${MESSAGE_STATUS.sent}'")).toBe(false);
  });
});
