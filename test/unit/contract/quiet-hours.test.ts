import { accountPatchSchema, quietHoursSchema, sequenceDefinitionSchema } from '../../../src/contract';

const problems = (
  schema: { safeParse(v: unknown): { error?: { issues: { path: PropertyKey[]; message: string }[] } } },
  body: unknown,
) => (schema.safeParse(body).error?.issues ?? []).map((i) => `${i.path.map(String).join('.')}: ${i.message}`);

describe('the quiet hours contract', () => {
  it('takes HH:MM or HH:MM:SS, crossing midnight or not', () => {
    for (const q of [
      { start: '22:00', end: '08:00' },
      { start: '12:00:30', end: '13:00' },
      { start: '00:00', end: '23:59:59' },
    ]) {
      expect(problems(quietHoursSchema, q)).toEqual([]);
    }
  });

  it('refuses the same time for start and end (however written), malformed times and unknown fields', () => {
    expect(problems(quietHoursSchema, { start: '08:00', end: '08:00:00' })).toEqual([
      'end: start and end are the same time: give a span (an end before the start crosses midnight)',
    ]);
    for (const bad of ['24:00', '8:00', '08:60', '08:00:60', '0800', '']) {
      expect(problems(quietHoursSchema, { start: bad, end: '09:00' })).toEqual([
        'start: must be a time of day, HH:MM or HH:MM:SS (00:00 to 23:59:59)',
      ]);
    }
    expect(problems(quietHoursSchema, { start: '22:00', end: '08:00', zone: 'UTC' })).toHaveLength(1);
  });

  it('lets an account clear its default (null), and a sequence turn quiet hours off (false) but not on (true)', () => {
    expect(problems(accountPatchSchema, { quietHours: null })).toEqual([]);
    const sequence = (quietHours: unknown) => ({
      appId: 'wx1',
      name: 'n',
      trigger: { type: 'subscribe' },
      steps: [{ offsetMs: 0, message: {} }],
      quietHours,
    });
    expect(problems(sequenceDefinitionSchema, sequence(false))).toEqual([]);
    expect(problems(sequenceDefinitionSchema, sequence(true))).not.toEqual([]);
  });
});
