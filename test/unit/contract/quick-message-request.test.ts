import fc from 'fast-check';
import { messageRequestSchema, quickMessageRequest } from '../../../src/contract';
import { readableIssue } from '../../../src/validation';

// quickMessageRequest stands in for messageRequestSchema on the hot path: whatever it accepts, zod must
// accept and parse to the same value, fields in the same order (a request's hash is taken over them).
const RUNS = Number(process.env.QUICK_PARSE_RUNS ?? 20_000);

/** Mostly a valid value, otherwise the edges on both sides of every limit and wrong types. */
const mostly = <T, U>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: other });
const anyJson = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.string(),
  fc.constant([]),
  fc.constant({}),
);
const key = mostly(
  fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), fc.constantFrom('k'.repeat(200), '😀'.repeat(100))),
  fc.oneof(fc.constantFrom('', 'k'.repeat(201), '😀'.repeat(101)), anyJson),
);
const wholeMs = (min: number, max: number) =>
  mostly(
    fc.oneof(fc.integer({ min, max: Math.min(max, 2 ** 40) }), fc.constantFrom(min, max)),
    fc.oneof(
      fc.constantFrom(min - 1, max + 1, -0, 1.5, 2 ** 53, -(2 ** 53), Infinity, NaN, '5'),
      fc.double(),
      anyJson,
    ),
  );
const isoTime = mostly(
  fc.oneof(
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom(
      '2026-05-01T09:30:00+08:00',
      '2026-05-01T09:30+08:00',
      '2026-05-01T09:30:00.123456789Z',
      '2028-02-29T00:00:00Z',
      '2026-05-01T09:30:00-23:59',
    ),
  ),
  fc.oneof(
    fc.constantFrom(
      '2026-05-01T09:30:00.1234567890Z',
      '2026-05-01T09:30:00',
      '2026-02-29T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-05-01T24:00:00Z',
      '2026-05-01T23:60:00Z',
      '2026-05-01T23:59:60Z',
      '2026-05-01T09:30:00+24:00',
      '2026-05-01',
      ' 2026-05-01T09:30:00Z',
    ),
    anyJson,
  ),
);
const message = mostly(
  fc.oneof(
    fc.constant({ msgtype: 'text', text: { content: 'hi' } }),
    fc.dictionary(fc.string({ maxLength: 8 }), anyJson, { maxKeys: 4 }),
    fc.constant({ 2: 'b', 1: 'a', z: 0 }),
  ),
  fc.oneof(
    fc.constantFrom(
      JSON.parse('{"__proto__": {"x": 1}, "a": 1}') as unknown,
      { constructor: 1 },
      { prototype: 'x' },
    ),
    anyJson,
  ),
);
const fields = {
  appId: mostly(fc.constant('wx0000000000000001'), fc.oneof(fc.constant(''), anyJson)),
  openid: mostly(
    fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,10}$/), fc.constant('o'.repeat(128))),
    fc.oneof(fc.constantFrom('o'.repeat(129), 'o.x', 'o x', 'o\n', ''), anyJson),
  ),
  channel: mostly(
    fc.constantFrom('custom', 'template', 'notice'),
    fc.oneof(fc.constantFrom('sms', 'Custom'), anyJson),
  ),
  message,
  sendAt: isoTime,
  delayMs: wholeMs(0, Number.MAX_SAFE_INTEGER),
  idempotencyKey: key,
  cancelKey: key,
  maxLatenessMs: wholeMs(1000, 30 * 86_400_000),
  frequencyCapped: mostly(fc.boolean(), anyJson),
  touser: anyJson,
};
type Field = keyof typeof fields;
const OPTIONAL = Object.keys(fields).filter((f) => !['appId', 'openid', 'message'].includes(f));

/**
 * Requests with any subset of the fields (the required ones most of the time), each from its
 * arbitrary, in any order, sometimes an undefined among them; sometimes not an object at all.
 */
const request = fc.oneof(
  { weight: 20, arbitrary: fc.record(fields, { requiredKeys: ['appId', 'openid', 'message'] }) },
  // Most requests leave most fields out.
  {
    weight: 20,
    arbitrary: fc
      .tuple(fc.record(fields, { requiredKeys: ['appId', 'openid', 'message'] }), fc.subarray([...OPTIONAL]))
      .map(([r, drop]) => Object.fromEntries(Object.entries(r).filter(([f]) => !drop.includes(f)))),
  },
  { weight: 5, arbitrary: fc.record(fields, { requiredKeys: [] }) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.record(fields, { requiredKeys: ['appId', 'openid', 'message'] }),
        fc.constantFrom(...Object.keys(fields)),
      )
      .map(([r, field]) => ({ ...r, [field as Field]: undefined })),
  },
  { weight: 1, arbitrary: anyJson },
);
/** Mostly what a body or a batch line is (JSON.parse's output), sometimes the object as built. */
const input = fc.tuple(request, fc.boolean()).map(([r, asJson]) => {
  if (!asJson) return r;
  const text = JSON.stringify(r);
  return text === undefined ? r : (JSON.parse(text) as unknown);
});

/** Valid requests as producers send them, which the quick check must take (else it is never used). */
const typical = fc.record(
  {
    appId: fc.constant('wx0000000000000001'),
    openid: fc.stringMatching(/^[A-Za-z0-9_-]{1,128}$/),
    channel: fc.constantFrom('custom', 'template', 'notice'),
    message: fc.constant({ msgtype: 'text', text: { content: 'hello' } }),
    sendAt: fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString()),
    idempotencyKey: fc.string({ minLength: 1, maxLength: 200 }),
    cancelKey: fc.string({ minLength: 1, maxLength: 200 }),
    maxLatenessMs: fc.integer({ min: 1000, max: 30 * 86_400_000 }),
    frequencyCapped: fc.boolean(),
  },
  { requiredKeys: ['appId', 'openid', 'message'] },
);

describe('quickMessageRequest', () => {
  it('accepts only what messageRequestSchema accepts, and returns the same value with its fields in the same order', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(input, (value) => {
        const quick = quickMessageRequest(value);
        const zod = messageRequestSchema.safeParse(value, { error: readableIssue });
        if (!zod.success) refused++;
        if (quick === null) return;
        accepted++;
        expect(zod.success).toBe(true);
        expect(quick).toStrictEqual(zod.data);
        expect(JSON.stringify(quick)).toBe(JSON.stringify(zod.data));
      }),
      { numRuns: RUNS },
    );
    // Both sides of the comparison were exercised.
    expect(accepted).toBeGreaterThan(RUNS / 100);
    expect(refused).toBeGreaterThan(RUNS / 4);
  });

  it('takes every valid request of the usual shape (so that zod is left the rest)', () => {
    fc.assert(
      fc.property(typical, (value) => {
        const parsed = JSON.parse(JSON.stringify(value)) as unknown;
        expect(quickMessageRequest(parsed)).toStrictEqual(messageRequestSchema.parse(parsed));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves to zod a request it cannot vouch for: not a JSON object, a field undefined, a reserved key in the message', () => {
    const base = { appId: 'wx0000000000000001', openid: 'o-1', message: { msgtype: 'text' } };
    expect(quickMessageRequest([base])).toBeNull();
    expect(quickMessageRequest(Object.assign(Object.create(null) as object, base))).toBeNull();
    expect(quickMessageRequest({ ...base, cancelKey: undefined })).toBeNull();
    expect(quickMessageRequest({ ...base, message: JSON.parse('{"__proto__": {}}') as unknown })).toBeNull();
    expect(quickMessageRequest({ ...base, sendAt: '2026-01-01T00:00:00Z', delayMs: 0 })).toBeNull();
  });
});
