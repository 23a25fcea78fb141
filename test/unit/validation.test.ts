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
      { path: 'name', message: 'is required' },
      { path: 'count', message: expect.stringContaining('3') as string },
      { path: 'extra', message: 'is not a known field' },
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
      { path: 'query.name', message: 'is required' },
      { path: 'query.count', message: 'must be a number' },
    ]);
  });

  it('makes the message from the details when asked to', () => {
    const err = refusal(() =>
      parseInput(schema, { name: 1, count: 1 }, (details) => `bad: ${details.map((d) => d.path).join(',')}`),
    );
    expect(err.message).toBe('bad: name');
  });
});
