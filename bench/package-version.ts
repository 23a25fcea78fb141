import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The project root, from the compiled bench (dist-bench/bench/…) or the sources. */
const ROOT = path.resolve(__dirname, __dirname.includes('dist-bench') ? '../..' : '..');

/**
 * The installed version of package `name`, read from node_modules (some packages, amqplib among them,
 * do not export their package.json).
 */
export function packageVersion(name: string): string {
  try {
    const file = path.join(ROOT, 'node_modules', name, 'package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
