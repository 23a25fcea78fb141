import { z } from 'zod';
import { parseSpec } from './counted-setting';

/**
 * Followers who act on cue (`POST /__sim/cues`): when the simulator accepts a send to a follower whose text
 * contains `when.contains` — a custom text message's content, or a template's shown fields — it pushes the
 * follower's answer `then` to the service's webhook `afterMs` later, as that follower: a reply, a menu
 * click or a scan. So a journey's yes path (a reply), its no path (no cue) and a conversion goal (a
 * keyword reply, a click) can each be played from the outside. Each cue answers a follower once, unless
 * `once` is false.
 */
const CUE_SCHEMA = z.strictObject({
  /** Only this account's followers; absent: every account's. */
  appId: z.string().min(1).optional(),
  /** Only followers whose openid starts with it; absent: every follower. */
  openidPrefix: z.string().min(1).optional(),
  when: z.strictObject({ contains: z.string().min(1).max(600) }),
  then: z.discriminatedUnion('action', [
    z.strictObject({ action: z.literal('message'), content: z.string().min(1).max(2000) }),
    z.strictObject({ action: z.literal('click'), key: z.string().min(1).max(128) }),
    z.strictObject({ action: z.literal('scan'), scene: z.string().min(1).max(64) }),
  ]),
  afterMs: z.number().int().min(0).max(600_000).default(0),
  once: z.boolean().default(true),
});

const SPEC_SCHEMA = z.strictObject({ cues: z.array(CUE_SCHEMA).min(1).max(100) });

export type Cue = z.output<typeof CUE_SCHEMA>;
/** The cues in force, in order. */
export type CueSpec = readonly Cue[];

/** Validates a `POST /__sim/cues` body (`{"cues": [...]}`); returns the cues or the list of problems. */
export function parseCueSpec(input: unknown): { spec: CueSpec } | { problems: string[] } {
  const parsed = parseSpec(SPEC_SCHEMA, input);
  return 'problems' in parsed ? parsed : { spec: parsed.spec.cues };
}

/** A follower's answer to push: the action and its field, as `POST /__sim/users/:openid/<action>` takes it. */
export interface CuedAction {
  readonly afterMs: number;
  readonly action: 'message' | 'click' | 'scan';
  readonly body: { readonly content?: string; readonly key?: string; readonly scene?: string };
}

/** The cues of one simulator. A new spec replaces the previous one (and forgets who answered). */
export interface Cues {
  set(spec: CueSpec): void;
  clear(): void;
  current(): CueSpec | null;
  /** The answers a send just accepted for (`appId`, `openid`) with `text` calls for. */
  answer(appId: string, openid: string, text: string): CuedAction[];
}

export function createCues(): Cues {
  let spec: CueSpec | null = null;
  let answered = new Set<string>();
  return {
    set(next) {
      spec = next;
      answered = new Set();
    },
    clear() {
      spec = null;
      answered = new Set();
    },
    current: () => spec,
    answer(appId, openid, text) {
      if (spec === null) return [];
      return spec.flatMap((cue, i): CuedAction[] => {
        if (cue.appId !== undefined && cue.appId !== appId) return [];
        if (cue.openidPrefix !== undefined && !openid.startsWith(cue.openidPrefix)) return [];
        if (!text.includes(cue.when.contains)) return [];
        const key = `${i}\n${appId}\n${openid}`;
        if (cue.once && answered.has(key)) return [];
        answered.add(key);
        const { action, ...body } = cue.then;
        return [{ afterMs: cue.afterMs, action, body }];
      });
    },
  };
}
