/** Composition root: the worker role only. */
import { run } from './run';

run('worker');
