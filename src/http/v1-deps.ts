import type { Config } from '../config';
import type { ScheduleDeps } from '../scheduling/schedule-messages';

/** What the /v1 routers need. */
export interface V1Deps extends ScheduleDeps {
  readonly config: Config;
  /** The api answers once rows commit; their publishes run in the background, visible to shutdown. */
  readonly track: (work: Promise<unknown>) => void;
}
