import type { Pool } from '../db/pool';

/**
 * Unused sending time an idle account may spend at once (ms of its rate): after a pause, this much goes
 * out together, then the rate holds. Small, so that any 30 s holds the rate to within 1 %.
 */
export const SEND_RATE_BURST_MS = 250;
/**
 * How far ahead an account's sends may be reserved (ms). The claim leaves an account's messages waiting
 * (re-delayed, nothing written) while its reservations reach further: rows never wait long in `sending`.
 */
export const SEND_RATE_HORIZON_MS = 1000;
/** WeChat's day, for the daily quota (reference/wechat.md §1: quotas reset daily). */
export const QUOTA_TIME_ZONE = 'Asia/Shanghai';

/** The sends one claim needs of an account. */
export interface SendCount {
  readonly appId: string;
  readonly custom: number;
  readonly template: number;
}

/** When the reserved sends of an account may go: the first at `startInMs` from now, then every `intervalMs`. */
export interface SendReservation {
  readonly appId: string;
  readonly startInMs: number;
  readonly intervalMs: number;
}

/**
 * Reserves the next slots of each account's deployment-wide send rate (GCRA on `send_pacing.next_at`) and
 * counts them in the day's sends, in one short statement of its own, so that the row lock is held for
 * microseconds, not for a claim. Accounts are taken in app id order (no deadlock between workers); an
 * account no longer in `accounts` gets no reservation. Times are the database's.
 */
export async function reserveSends(pool: Pool, counts: readonly SendCount[]): Promise<SendReservation[]> {
  if (counts.length === 0) return [];
  const { rows } = await pool.query<{ app_id: string; ends_in_ms: number; n: number; rate: number }>(
    `WITH clock AS (SELECT clock_timestamp() AS t), req AS (
       SELECT r.app_id, r.custom, r.template, a.send_rate_per_second::float8 AS rate
       FROM unnest($1::text[], $2::int[], $3::int[]) AS r(app_id, custom, template)
       JOIN accounts a ON a.app_id = r.app_id
     ), reserved AS (
       INSERT INTO send_pacing AS p (app_id, next_at, day, custom_sent, template_sent)
       SELECT req.app_id, clock.t + (req.custom + req.template) / req.rate * interval '1 second',
              (clock.t AT TIME ZONE '${QUOTA_TIME_ZONE}')::date, req.custom, req.template
       FROM req, clock ORDER BY req.app_id
       ON CONFLICT (app_id) DO UPDATE SET
         next_at = greatest(p.next_at, (SELECT t FROM clock) - ${SEND_RATE_BURST_MS} * interval '1 millisecond')
                   + (EXCLUDED.next_at - (SELECT t FROM clock)),
         day = EXCLUDED.day,
         custom_sent = EXCLUDED.custom_sent + CASE WHEN p.day = EXCLUDED.day THEN p.custom_sent ELSE 0 END,
         template_sent = EXCLUDED.template_sent + CASE WHEN p.day = EXCLUDED.day THEN p.template_sent ELSE 0 END
       RETURNING p.app_id, p.next_at
     )
     SELECT reserved.app_id, extract(epoch FROM reserved.next_at - clock.t) * 1000 AS ends_in_ms,
            req.custom + req.template AS n, req.rate
     FROM reserved JOIN req USING (app_id), clock`,
    [counts.map((c) => c.appId), counts.map((c) => c.custom), counts.map((c) => c.template)],
  );
  return rows.map((r) => {
    const intervalMs = 1000 / Number(r.rate);
    return { appId: r.app_id, startInMs: Number(r.ends_in_ms) - r.n * intervalMs, intervalMs };
  });
}

/** Each account's sends of WeChat's current day, by channel (accounts that sent nothing today are absent). */
export async function sentToday(pool: Pool): Promise<Map<string, { custom: number; template: number }>> {
  const { rows } = await pool.query<{ app_id: string; custom_sent: number; template_sent: number }>(
    `SELECT app_id, custom_sent, template_sent FROM send_pacing
     WHERE day = (now() AT TIME ZONE '${QUOTA_TIME_ZONE}')::date`,
  );
  return new Map(rows.map((r) => [r.app_id, { custom: r.custom_sent, template: r.template_sent }]));
}
