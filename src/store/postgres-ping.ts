import type { Pool } from '../db/pool';

/**
 * Whether Postgres answers a trivial query within `timeoutMs`. Never rejects: a refused connection, a
 * server that does not answer and a pool that cannot connect all come back as false.
 */
export async function pingPostgres(pool: Pool, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answered = pool.query('SELECT 1').then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
