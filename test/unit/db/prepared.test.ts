import { preparedStatement } from '../../../src/db/prepared';
import { byIdStatement, inPartitionsOf, partitionSlotsOf } from '../../../src/store/message-partitions';
import { newMessageId } from '../../../src/store/message-id';

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
  const at = (iso: string) => newMessageId(new Date(iso), 0);
  const legacyId = '3f0c6b1e-8a4d-4c2e-9b7a-5d1e2f3a4b5c';

  it('take the range of their ids’ times and the legacy partition as three parameters after their own', () => {
    const ids = [
      at('2026-11-27T10:00:00.000Z'),
      at('2026-11-27T09:00:00.500Z'),
      at('2026-11-28T01:00:00.000Z'),
    ];
    expect(lookup([ids], partitionSlotsOf(ids, { awaitingPump: false }))).toEqual({
      name: 'unit_lookup',
      text:
        'SELECT id FROM scheduled_messages m WHERE m.id = ANY($1::uuid[]) AND ' +
        '(m.due_slot BETWEEN $2::timestamptz AND $3::timestamptz OR m.due_slot = $4::timestamptz)',
      values: [ids, '2026-11-27T09:00:00.500Z', '2026-11-28T01:00:00.000Z', null],
    });
  });

  it('reach the later partition for ids that may await the pump, and the legacy one for random ids', () => {
    const day = at('2026-11-27T10:00:00.000Z');
    expect(partitionSlotsOf([day], { awaitingPump: true })).toEqual({
      from: '2026-11-27T10:00:00.000Z',
      to: 'infinity',
      legacy: false,
    });
    expect(partitionSlotsOf([legacyId], { awaitingPump: true })).toEqual({
      from: 'infinity',
      to: 'infinity',
      legacy: true,
    });
    expect(partitionSlotsOf([legacyId, day], { awaitingPump: false })).toEqual({
      from: '2026-11-27T10:00:00.000Z',
      to: '2026-11-27T10:00:00.000Z',
      legacy: true,
    });
    expect(lookup([[legacyId]], partitionSlotsOf([legacyId], { awaitingPump: false })).values).toEqual([
      [legacyId],
      null,
      null,
      '-infinity',
    ]);
  });

  it('refuse a call with another number of values than the first: the slots would take a value’s place', () => {
    const ids = [at('2026-11-27T10:00:00.000Z')];
    const slots = partitionSlotsOf(ids, { awaitingPump: false });
    const twoValues = byIdStatement(
      'unit_two_values',
      `SELECT $2::text FROM scheduled_messages m WHERE ${inPartitionsOf('m')}`,
    );
    expect(twoValues([ids, 'a'], slots).text).toContain('$3::timestamptz');
    expect(() => twoValues([ids], slots)).toThrow(
      'statement unit_two_values takes 2 values before its partitions',
    );
  });
});
