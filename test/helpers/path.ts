import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Whether `bin` is an executable on this process's PATH (looked up here, so a test can hide it through PATH). */
export function onPath(bin: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, bin), constants.X_OK);
      return dir !== '';
    } catch {
      return false;
    }
  });
}
