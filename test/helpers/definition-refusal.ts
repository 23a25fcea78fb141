import { ValidationError } from '../../src/errors';
import { parseSequenceDefinition } from '../../src/sequences/sequence-schema';
import type { WindowPolicy } from '../../src/wechat/window-policy';

/** The details of the ValidationError a sequence definition is refused with (fails if it is accepted). */
export function definitionRefusal(
  input: unknown,
  policyOf: (appId: string) => WindowPolicy | undefined,
): { path: string; message: string }[] {
  try {
    parseSequenceDefinition(input, policyOf);
  } catch (err) {
    // The words people read; each detail's rule (for a client's own language) is checked where it is made.
    if (err instanceof ValidationError)
      return (err.details as { path: string; message: string }[]).map(({ path, message }) => ({
        path,
        message,
      }));
    throw err;
  }
  throw new Error('the definition was accepted');
}
