import pg from 'pg';
import { burst, type BurstResult, type Scenario } from './scenarios';
import type { DripSystem } from './drip';

/** Scenario 10's horizon: every message of its burst is scheduled beyond it (see `horizonBurst`). */
export const BURST_HORIZON_MS = 30_000;

export interface HorizonBurstResult {
  readonly horizonSeconds: number;
  /** The burst published at schedule time (as without a horizon): the reference. */
  readonly published: BurstResult;
  /** The same burst, all of it waiting in Postgres until it entered the horizon at one instant. */
  readonly entering: BurstResult;
  /** From the instant the burst entered the horizon until the pump had moved its last row, seconds. */
  readonly pumpSeconds: number;
}

/** Rows still awaiting the pump in `schema`. */
async function awaitingPump(client: pg.Client, schema: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${schema}.scheduled_messages WHERE awaiting_pump AND status = 'queued'`,
  );
  return rows[0].n;
}

/**
 * Scenario 10 (wechat-drip only): `count` messages due at one instant, first on `published` (the
 * default horizon: each wake-up goes out as it is scheduled), then on `pumped`, which runs with
 * PUBLISH_HORIZON = BURST_HORIZON_MS and gets the same burst `BURST_HORIZON_MS` further ahead: every row
 * waits in Postgres, all enter the horizon at one instant, and the horizon pump must publish them before
 * they fall due. Run `inSystem(system, work)` around each (start, work, stop).
 */
export async function horizonBurst(
  s: Scenario,
  systems: { published: DripSystem; pumped: DripSystem },
  count: number,
  leadMs: number,
  inSystem: <T>(system: DripSystem, work: () => Promise<T>) => Promise<T>,
): Promise<HorizonBurstResult> {
  const published = await inSystem(systems.published, () =>
    burst({ ...s, system: systems.published, tag: `${s.tag}-p` }, count, leadMs),
  );
  const client = new pg.Client({ connectionString: s.env.databaseUrl });
  await client.connect();
  try {
    let pumpSeconds = NaN;
    const entering = await inSystem(systems.pumped, async () => {
      const schema = systems.pumped.schemaName();
      // The burst's due time is its lead plus the horizon from now: it enters the horizon after `leadMs`.
      const enteredAt = Date.now() + leadMs;
      // Watches the pump while the burst runs: when the last row left the queue of rows awaiting it.
      let watching = true;
      const watch = (async () => {
        let seen = false;
        while (watching) {
          const left = await awaitingPump(client, schema);
          if (left > 0) seen = true;
          else if (seen && Number.isNaN(pumpSeconds)) pumpSeconds = (Date.now() - enteredAt) / 1000;
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      try {
        return await burst(
          { ...s, system: systems.pumped, tag: `${s.tag}-h` },
          count,
          leadMs + BURST_HORIZON_MS,
        );
      } finally {
        watching = false;
        await watch;
      }
    });
    s.log(
      `  horizon burst ${count}: published at schedule ${Math.round(published.sendsPerSecond)}/s p99 ` +
        `${published.lateness.p99} ms; entering a ${BURST_HORIZON_MS / 1000} s horizon at once ` +
        `${Math.round(entering.sendsPerSecond)}/s p99 ${entering.lateness.p99} ms, pumped in ${pumpSeconds.toFixed(1)} s`,
    );
    return { horizonSeconds: BURST_HORIZON_MS / 1000, published, entering, pumpSeconds };
  } finally {
    await client.end();
  }
}
