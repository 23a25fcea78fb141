import { preparedStatement } from '../../../src/db/prepared';
import { byIdStatement, inPartitionsOf, PREPARED_SLOTS } from '../../../src/store/message-partitions';

describe('prepared statements', () => {
  it('carry their name, text and values; a name holds one text in the process', () => {
    const statement = preparedStatement('unit_one', 'SELECT $1::int');
    expect(statement([7])).toEqual({ name: 'unit_one', text: 'SELECT $1::int', values: [7] });
    expect(() => preparedStatement('unit_one', 'SELECT $1::int')).not.toThrow();
    expect(() => preparedStatement('unit_one', 'SELECT $1::text')).toThrow(
      'two statements are named unit_one',
    );
  });
});

describe('statements naming messages by id', () => {
  const lookup = byIdStatement(
    'unit_lookup',
    `SELECT id FROM scheduled_messages m WHERE m.id = ANY($1::uuid[]) AND ${inPartitionsOf('m')}`,
  );

  it('take one parameter per partition slot, after their own, and are prepared once per count of slots', () => {
    const two = lookup([['a']], ['2026-11-27T00:00:00.000Z', 'infinity']);
    expect(two).toEqual({
      name: 'unit_lookup/2',
      text: 'SELECT id FROM scheduled_messages m WHERE m.id = ANY($1::uuid[]) AND m.due_slot IN ($2::timestamptz, $3::timestamptz)',
      values: [['a'], '2026-11-27T00:00:00.000Z', 'infinity'],
    });
    expect(lookup([['b']], ['x', 'y']).name).toBe('unit_lookup/2');
    expect(lookup([['b']], ['x']).name).toBe('unit_lookup/1');
  });

  it(`run unnamed beyond ${PREPARED_SLOTS} slots, and match nothing with none`, () => {
    const many = Array.from({ length: PREPARED_SLOTS + 1 }, (_, i) => `s${i}`);
    const statement = lookup([[]], many);
    expect(statement.name).toBeUndefined();
    expect(statement.values).toEqual([[], ...many]);
    expect(statement.text).toContain(`$${PREPARED_SLOTS + 2}::timestamptz)`);
    expect(lookup([[]], []).text).toContain('m.due_slot IN (NULL)');
  });
});
