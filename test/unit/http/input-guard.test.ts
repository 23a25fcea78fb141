import fc from 'fast-check';
import { findInputIssues, walkInputIssues } from '../../../src/http/input-guard';

// findInputIssues looks quickly first and walks (naming each problem) only when the look finds something:
// on any input, it must answer what the walk alone answers.
const RUNS = Number(process.env.QUICK_PARSE_RUNS ?? 20_000);

/** Text with NULs, lone and paired surrogates mixed in among any other code units. */
const unit = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '😀') },
  { weight: 8, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);
const text = fc.string({ unit, maxLength: 8 });
const name = fc.oneof(
  { weight: 8, arbitrary: text },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype') },
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.constantFrom(null, 0, true, 1.5),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(name, tie('value')), { maxLength: 4 }).map((entries) => {
      // Own properties as JSON.parse makes them, `__proto__` included.
      const object: Record<string, unknown> = {};
      for (const [k, v] of entries)
        Object.defineProperty(object, k, { value: v, enumerable: true, configurable: true, writable: true });
      return object;
    }),
  ),
}));

/** `levels` nested objects around `inner`. */
const nested = (levels: number, inner: unknown): unknown => {
  let v = inner;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

describe('findInputIssues', () => {
  it('answers what the walk alone answers, on any input', () => {
    let clean = 0;
    let unclean = 0;
    fc.assert(
      fc.property(value, fc.constantFrom('', 'query'), (v, prefix) => {
        const walked = walkInputIssues(v, prefix);
        if (walked.length === 0) clean++;
        else unclean++;
        expect(findInputIssues(v, prefix)).toEqual(walked);
      }),
      { numRuns: RUNS },
    );
    expect(clean).toBeGreaterThan(RUNS / 10);
    expect(unclean).toBeGreaterThan(RUNS / 10);
  });

  it('finds a problem however deep it is, and lets a clean deep value through', () => {
    expect(findInputIssues(nested(10_000, 'x\u0000'), '')).toHaveLength(1);
    expect(findInputIssues(nested(30, 'x\u0000'), '')).toHaveLength(1);
    expect(findInputIssues(nested(10_000, 'x'), '')).toEqual([]);
  });
});
