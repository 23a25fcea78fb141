import pg from 'pg';
import { createPool } from '../../../src/db/pool';
import { silentLogger } from '../../helpers/logger';

describe('db/pool', () => {
  it('importing it leaves the int8 parser of every other pg user at its default (a string)', () => {
    const parse = pg.types.getTypeParser(pg.types.builtins.INT8) as (value: string) => unknown;
    expect(parse('9007199254740993')).toBe('9007199254740993');
  });

  it('creating a pool leaves the int8 parser of every other pg user at its default (a string)', async () => {
    const pool = createPool({
      connectionString: 'postgres://127.0.0.1:1/none',
      max: 1,
      logger: silentLogger,
    });
    await pool.end();
    const parse = pg.types.getTypeParser(pg.types.builtins.INT8) as (value: string) => unknown;
    expect(parse('42')).toBe('42');
  });
});
