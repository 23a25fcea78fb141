/** Composition root: the role named by ROLE (default `all`: api and worker in one process). */
import { run } from './run';

run();
