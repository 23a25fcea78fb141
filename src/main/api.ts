/** Composition root: the api role only. */
import { run } from './run';

run('api');
