import { z } from 'zod';
import { ValidationError } from '../../src/errors';
import { parseInput } from '../../src/validation';

const schema = z.object({ name: z.string(), count: z.number().max(3) }).strict();

/** The error that `parse` throws, to look at. */
function refusal(parse: () => unknown): ValidationError {
  try {
    parse();
  } catch (err) {
    return err as ValidationError;
  }
  throw new Error('the input was accepted');
}

describe('parseInput', () => {
  it('returns the parsed value of a good input', () => {
    expect(parseInput(schema, { name: 'a', count: 1 }, 'invalid thing')).toEqual({ name: 'a', count: 1 });
  });

  it('throws a 400 that names every problem, worded for people, with the message given', () => {
    const err = refusal(() => parseInput(schema, { count: 9, extra: true }, 'invalid thing'));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.httpStatus).toBe(400);
    expect(err.message).toBe('invalid thing');
    expect(err.details).toEqual([
      { path: 'name', message: 'is required', rule: { kind: 'required' } },
      {
        path: 'count',
        message: 'must be at most 3',
        rule: { kind: 'too_big', origin: 'number', maximum: 3, inclusive: true },
      },
      { path: 'extra', message: 'is not a known field', rule: { kind: 'unknown_field' } },
    ]);
  });

  it('puts paths under the prefix, words unknown fields as asked, and keeps the first few details', () => {
    const err = refusal(() =>
      parseInput(schema, { count: 'x', other: 1 }, 'invalid query', {
        prefix: 'query',
        unknownFields: { other: 'give name instead' },
        maxDetails: 2,
      }),
    );
    expect(err.details).toEqual([
      { path: 'query.name', message: 'is required', rule: { kind: 'required' } },
      { path: 'query.count', message: 'must be a number', rule: { kind: 'type', expected: 'number' } },
    ]);
  });

  it('makes the message from the details when asked to', () => {
    const err = refusal(() =>
      parseInput(schema, { name: 1, count: 1 }, (details) => `bad: ${details.map((d) => d.path).join(',')}`),
    );
    expect(err.message).toBe('bad: name');
  });
});

describe('the rule of each detail, and its English', () => {
  const detailOf = (schema: z.ZodType, input: unknown) => {
    const details = refusal(() => parseInput(schema, input, 'invalid')).details as unknown[];
    expect(details).toHaveLength(1);
    return details[0];
  };

  it.each([
    [z.string().min(1), '', 'must not be empty', { kind: 'too_small', origin: 'string', minimum: 1 }],
    [z.string().min(3), 'ab', 'must be at least 3 characters long', { kind: 'too_small', minimum: 3 }],
    [z.string().max(2), 'abc', 'must be at most 2 characters long', { kind: 'too_big', maximum: 2 }],
    [z.array(z.number()).min(1), [], 'must not be empty', { kind: 'too_small', origin: 'array' }],
    [z.array(z.number()).max(1), [1, 2], 'must have at most 1 items', { kind: 'too_big', origin: 'array' }],
    [z.number().min(1), 0, 'must be at least 1', { kind: 'too_small', origin: 'number', inclusive: true }],
    [z.number().positive(), 0, 'must be greater than 0', { kind: 'too_small', inclusive: false }],
    [z.number().int(), 1.5, 'must be an int', { kind: 'type', expected: 'int' }],
    [z.enum(['a', 'b']), 'c', 'must be one of: "a", "b"', { kind: 'one_of', values: ['a', 'b'] }],
    [z.literal(true), false, 'must be true', { kind: 'one_of', values: [true] }],
    [z.url(), 'nope', 'must be a URL', { kind: 'format', format: 'url' }],
    [z.string().regex(/^x$/), 'y', 'is not in the expected format', { kind: 'format', format: 'regex' }],
    [z.number().multipleOf(5), 7, 'must be a multiple of 5', { kind: 'multiple_of', divisor: 5 }],
  ])("%#: words zod's issue for people and names its rule for programs", (schema, input, message, rule) => {
    expect(detailOf(schema, input)).toEqual({ path: '(root)', message, rule: expect.objectContaining(rule) });
  });

  it('keeps a message set on the schema, with the rule its refinement names (or invalid)', () => {
    const named = z
      .string()
      .refine((s) => s !== 'main', { message: 'is taken', params: { rule: 'taken', by: 'x' } });
    expect(detailOf(named, 'main')).toEqual({
      path: '(root)',
      message: 'is taken',
      rule: { kind: 'taken', by: 'x' },
    });
    const unnamed = z.string().refine((s) => s !== 'main', 'is taken');
    expect(detailOf(unnamed, 'main')).toEqual({
      path: '(root)',
      message: 'is taken',
      rule: { kind: 'invalid' },
    });
    expect(detailOf(z.string().min(1, 'say something'), '')).toEqual({
      path: '(root)',
      message: 'say something',
      rule: { kind: 'too_small', origin: 'string', minimum: 1, inclusive: true },
    });
  });
});
