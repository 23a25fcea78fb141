import { DatabaseError } from 'pg';
import { AppError } from '../../src/errors';
import { coerceError, errorText, loggableError } from '../../src/loggable-error';

function aDatabaseError(): DatabaseError {
  const err = new DatabaseError('invalid input syntax for type json: "my secret words"', 80, 'error');
  Object.assign(err, { code: '22P02', routine: 'json_errsave_error', table: 'scheduled_messages' });
  return err;
}

describe('coerceError', () => {
  it('keeps an Error, and turns anything else thrown into one that keeps its words', () => {
    const err = new TypeError('x');
    expect(coerceError(err)).toBe(err);
    expect(coerceError('plain words').message).toBe('plain words');
    expect(coerceError({ message: 'from an object' }).message).toBe('from an object');
    expect(coerceError(undefined).message).toBe('undefined');
    expect(coerceError(null)).toBeInstanceOf(Error);
  });
});

describe('loggableError', () => {
  it("of a database error keeps the SQLSTATE and the objects' names, never its text", () => {
    const logged = loggableError(aDatabaseError());
    expect(logged).toEqual({
      type: 'DatabaseError',
      sqlstate: '22P02',
      routine: 'json_errsave_error',
      table: 'scheduled_messages',
      column: undefined,
      constraint: undefined,
    });
    expect(JSON.stringify(logged)).not.toContain('secret words');
  });

  it('keeps the class, code and message of any other error', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(loggableError(refused)).toEqual({
      type: 'Error',
      message: 'connect ECONNREFUSED 127.0.0.1:5432',
      code: 'ECONNREFUSED',
    });
    expect(loggableError(new AppError('push_not_recorded', 'the push could not be recorded'))).toEqual({
      type: 'AppError',
      message: 'the push could not be recorded',
      code: 'push_not_recorded',
    });
    expect(loggableError('thrown words')).toEqual({ type: 'Error', message: 'thrown words' });
  });

  it('redacts credentials in URLs, tokens and secrets in query strings, and bearer tokens', () => {
    const text = (message: string) => loggableError(new Error(message)).message;
    expect(text('connect to amqp://guest:hunter2@127.0.0.1:5672 failed')).toBe(
      'connect to amqp://guest:[redacted]@127.0.0.1:5672 failed',
    );
    expect(text('GET /cgi-bin/message?access_token=ACCESS123&x=1 failed')).toBe(
      'GET /cgi-bin/message?access_token=[redacted]&x=1 failed',
    );
    expect(text('appsecret=S3CR3T, component_verify_ticket=T1, auth_code=C0DE')).toBe(
      'appsecret=[redacted], component_verify_ticket=[redacted], auth_code=[redacted]',
    );
    expect(text('Authorization: Bearer abc.def')).toBe('Authorization: Bearer [redacted]');
  });

  it("drops the input a parse error quotes (a message's words)", () => {
    let parseError: unknown;
    try {
      JSON.parse('{"text": "see you at the clinic at 3"');
    } catch (err) {
      parseError = err;
    }
    const logged = loggableError(parseError);
    expect(logged.type).toBe('SyntaxError');
    expect(logged.message).not.toContain('clinic');
  });

  it('adds the stack frames, without the message line, only when asked', () => {
    const err = new Error('access_token=ABC');
    expect(loggableError(err).stack).toBeUndefined();
    const { stack } = loggableError(err, { stack: true });
    expect(stack).toContain('loggable-error.test.ts');
    expect(stack).not.toContain('ABC');
  });
});

describe('errorText', () => {
  it("is the scrubbed message, or what names a database error's place", () => {
    expect(errorText(new Error('token=XYZ rejected'))).toBe('token=[redacted] rejected');
    expect(errorText(aDatabaseError())).toBe('database error 22P02 on scheduled_messages');
  });
});
