/**
 * Postgres errors that mean "the database is not reachable right now" rather than "this statement is
 * wrong": the caller waits and tries again instead of failing the work. Translated here, once.
 *   08xxx  connection exceptions            57P01 admin_shutdown   57P02 crash_shutdown
 *   57P03  cannot_connect_now (starting up)  53300 too_many_connections
 *   40001  serialization_failure             40P01 deadlock_detected (the statement can simply rerun)
 * plus Node socket errors and pg's own "Connection terminated…" / connect-timeout messages.
 */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '40001', '40P01']);
const TRANSIENT_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

export function isTransientDbError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (code.startsWith('08') || TRANSIENT_SQLSTATES.has(code) || TRANSIENT_NODE_CODES.has(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)/i.test(
    message,
  );
}
