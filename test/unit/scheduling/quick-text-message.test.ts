import fc from 'fast-check';
import { quickTextMessage } from '../../../src/scheduling/schedule-request';
import { parseChannelMessage } from '../../../src/wechat/message-schema';

// quickTextMessage stands in for parseChannelMessage on the hot path: whatever it accepts, zod must accept
// and parse to the same value, fields in the same order (a request's hash is taken over them).
const RUNS = Number(process.env.QUICK_PARSE_RUNS ?? 20_000);

/** Contents around WeChat's 2,048-byte limit, in 1-, 3- and 4-byte characters, and the odd ones out. */
const content = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    'a'.repeat(2048),
    'a'.repeat(2049),
    '中'.repeat(682),
    '中'.repeat(683),
    '😀'.repeat(512),
    '😀'.repeat(513),
    `${'a'.repeat(2045)}\ud800`,
    `${'a'.repeat(2046)}\ud800`,
  ),
  fc.constantFrom(null, 1, true, [], {}),
);
const anyJson = fc.constantFrom(null, 1, 'x', true, [], {});
const text = fc.oneof(
  { weight: 5, arbitrary: content.map((c) => ({ content: c })) },
  { weight: 1, arbitrary: fc.record({ content, extra: anyJson }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: anyJson },
);
const message = fc.oneof(
  { weight: 5, arbitrary: text.map((t) => ({ msgtype: 'text', text: t })) },
  { weight: 1, arbitrary: text.map((t) => ({ text: t, msgtype: 'text' })) },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        msgtype: fc.constantFrom('text', 'image', 'Text'),
        text,
        image: fc.constant({ media_id: 'm' }),
        customservice: fc.constantFrom({ kf_account: 'a@b' }, { kf_account: 'x' }),
        touser: anyJson,
      },
      { requiredKeys: [] },
    ),
  },
);
const channel = fc.constantFrom('custom', 'custom', 'custom', 'template', 'notice');

describe('quickTextMessage', () => {
  it('accepts only what parseChannelMessage accepts, and returns the same value with its fields in the same order', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(channel, message, (ch, m) => {
        const quick = quickTextMessage(ch, m);
        let zod: unknown;
        try {
          zod = parseChannelMessage(ch, m);
        } catch {
          refused++;
          expect(quick).toBeNull();
          return;
        }
        if (quick === null) return;
        accepted++;
        expect(quick).toStrictEqual(zod);
        expect(JSON.stringify(quick)).toBe(JSON.stringify(zod));
      }),
      { numRuns: RUNS },
    );
    expect(accepted).toBeGreaterThan(RUNS / 10);
    expect(refused).toBeGreaterThan(RUNS / 10);
  });

  it('takes a plain text message up to 2,048 bytes of UTF-8, and leaves a longer one to zod', () => {
    for (const c of ['hello', 'a'.repeat(2048), '中'.repeat(682), '😀'.repeat(512)])
      expect(quickTextMessage('custom', { text: { content: c }, msgtype: 'text' })).toEqual({
        msgtype: 'text',
        text: { content: c },
      });
    for (const c of ['a'.repeat(2049), '中'.repeat(683), '😀'.repeat(513)])
      expect(quickTextMessage('custom', { msgtype: 'text', text: { content: c } })).toBeNull();
  });
});
