import { createCues, parseCueSpec } from '../../../src/simulator/cues';

const spec = (input: unknown) => {
  const parsed = parseCueSpec(input);
  if ('problems' in parsed) throw new Error(parsed.problems.join('; '));
  return parsed.spec;
};

describe('simulator cues', () => {
  it('answers a send whose text contains the cue, for the followers and account it names, once each', () => {
    const cues = createCues();
    cues.set(
      spec({
        cues: [
          {
            appId: 'wx1',
            openidPrefix: 'buyer-',
            when: { contains: '优惠' },
            then: { action: 'click', key: 'BUY' },
            afterMs: 50,
          },
        ],
      }),
    );
    expect(cues.answer('wx1', 'buyer-1', '今日优惠券')).toEqual([
      { afterMs: 50, action: 'click', body: { key: 'BUY' } },
    ]);
    expect(cues.answer('wx1', 'buyer-1', '又一张优惠券')).toEqual([]);
    expect(cues.answer('wx1', 'buyer-2', '优惠')).toHaveLength(1);
    expect(cues.answer('wx1', 'other-1', '优惠')).toEqual([]);
    expect(cues.answer('wx2', 'buyer-3', '优惠')).toEqual([]);
    expect(cues.answer('wx1', 'buyer-4', 'no match')).toEqual([]);
  });

  it('answers every matching send with once: false; a new spec forgets who answered; clear stops them', () => {
    const cues = createCues();
    const replies = spec({
      cues: [{ when: { contains: 'hi' }, then: { action: 'message', content: 'hello' }, once: false }],
    });
    cues.set(replies);
    expect(cues.answer('wx1', 'o', 'hi')).toEqual([
      { afterMs: 0, action: 'message', body: { content: 'hello' } },
    ]);
    expect(cues.answer('wx1', 'o', 'hi again')).toHaveLength(1);
    cues.clear();
    expect(cues.answer('wx1', 'o', 'hi')).toEqual([]);
    expect(cues.current()).toBeNull();
  });

  it.each([
    ['no cues', { cues: [] }, 'cues'],
    [
      'an unknown action',
      { cues: [{ when: { contains: 'x' }, then: { action: 'pay' } }] },
      'cues.0.then.action',
    ],
    [
      'an empty cue text',
      { cues: [{ when: { contains: '' }, then: { action: 'scan', scene: 's' } }] },
      'cues.0.when.contains',
    ],
    [
      'a delay over 10 minutes',
      { cues: [{ when: { contains: 'x' }, then: { action: 'scan', scene: 's' }, afterMs: 600_001 }] },
      'cues.0.afterMs',
    ],
  ])('refuses %s, naming the field', (_what, input, field) => {
    const parsed = parseCueSpec(input);
    expect('problems' in parsed && parsed.problems.join(' ')).toContain(field);
  });
});
