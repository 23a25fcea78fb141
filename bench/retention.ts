/**
 * Issue 16's retention measurement (`make bench-retention`): what pruning a backlog of finished rows
 * costs a burst. wechat-drip (levels) with RETENTION_PAIRS pairs of the same burst (RETENTION_BURST
 * messages due at one instant), one with the pruner dropping the partitions of RETENTION_ROWS finished
 * messages (one attempt each, finished 40 days ago, inserted with generate_series) and one without, interleaved
 * (the order alternates) so that the machine's other load falls on both alike. Prints each pair and the
 * medians; writes nothing (the numbers go into docs/BENCHMARKS.md by hand).
 */
import { createPool, type Pool } from '../src/db/pool';
import { createLogger } from '../src/logger';
import { createMetrics } from '../src/metrics';
import { createPruner } from '../src/retention/pruner';
import { ensureMessagePartitions } from '../src/store/message-partitions';
import { messageIdSql } from '../test/helpers/message-rows';
import { withSearchPath } from '../test/helpers/services';
import { createDripSystem } from './drip';
import { burst, type BurstResult } from './scenarios';
import { benchEnvOf, readSettings } from './settings';
import { startSimulator } from './simulator';

const DAY_MS = 86_400_000;
const FILL_CHUNK = 500_000;

const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const count = (name: string, def: number) => Number(process.env[name] ?? def);
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * `rows` sent messages, each with one attempt, due and finished 40 days ago (one ms apart, in that day's
 * partitions), in chunks (one statement each).
 */
async function fill(pool: Pool, appId: string, rows: number): Promise<void> {
  const started = performance.now();
  const first = Date.now() - 40 * DAY_MS;
  await ensureMessagePartitions(pool, [new Date(first), new Date(first + rows)], DAY_MS);
  for (let from = 0; from < rows; from += FILL_CHUNK) {
    const n = Math.min(FILL_CHUNK, rows - from);
    await pool.query(
      `WITH m AS (
         INSERT INTO scheduled_messages (id, due_slot, app_id, openid, channel, payload, due_at, intended_at,
                                         status, attempts, created_at, updated_at, sent_at)
         SELECT id, message_slot(id), $1, 'o-old-' || (i % 100000), 'custom',
                '{"msgtype":"text","text":{"content":"old"}}', t, t, 'sent', 1, t, t, t
         FROM (SELECT i, t, ${messageIdSql('t')} AS id
                 FROM generate_series($3::int + 1, $3::int + $2::int) i,
                      LATERAL (SELECT $4::timestamptz + i * interval '1 ms') x(t)) r
         RETURNING id, due_slot, updated_at)
       INSERT INTO delivery_attempts (message_id, attempt, duration_ms, outcome, created_at, due_slot)
       SELECT id, 1, 5, 'sent', updated_at, due_slot FROM m`,
      [appId, n, from, new Date(first).toISOString()],
    );
    log(`  filled ${from + n} of ${rows}`);
  }
  await pool.query('ANALYZE scheduled_messages, delivery_attempts');
  log(`  ${rows} finished rows in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

async function main(): Promise<void> {
  const settings = readSettings(process.env);
  const burstSize = count('RETENTION_BURST', 30_000);
  const pairs = count('RETENTION_PAIRS', 3);
  const rows = count('RETENTION_ROWS', 5_000_000);
  // The workers' own pruners stay off: this process runs the one pruner, when the pair says so.
  process.env.RETENTION_FINISHED_AFTER = 'off';
  const sim = await startSimulator({
    root: `${__dirname}/../..`,
    port: settings.simPort,
    appId: settings.appId,
    secret: settings.secret,
  });
  const env = benchEnvOf(settings, sim.url, __dirname);
  const system = createDripSystem(env, 'levels', env.rabbitmqUrl);
  const logger = createLogger({ level: 'warn', name: 'bench-retention' });
  await system.start();
  const pool = createPool({
    connectionString: withSearchPath(env.databaseUrl, system.schemaName()),
    max: 2,
    logger,
  });
  const results: { off: BurstResult; on: BurstResult; pruned: number; pruneSeconds: number }[] = [];
  try {
    await fill(pool, env.appId, rows);
    const lead = Math.max(10_000, Math.round((burstSize / 1000) * 1300) + 5_000);
    const scenario = (name: string) => ({ system, sim, env, sizes: settings.sizes, tag: `ret-${name}`, log });
    for (let pair = 1; pair <= pairs; pair++) {
      const withPruning = async () => {
        const metrics = createMetrics({ pool, transportMode: 'levels' });
        const pruner = createPruner({
          pool,
          logger,
          metrics,
          options: { finishedAfterMs: 30 * DAY_MS, batchSize: 1000, intervalMs: 100, pushesKeepAtLeastMs: 0 },
        });
        const started = performance.now();
        pruner.start();
        const result = await burst(scenario(`on${pair}`), burstSize, lead, pair * 1_000_000);
        await pruner.stop();
        const pruned =
          (await metrics.retentionPruned.get()).values.find((v) => v.labels.table === 'scheduled_messages')
            ?.value ?? 0;
        const pruneSeconds = (performance.now() - started) / 1000;
        log(
          `  pruned ${pruned} messages (and their attempts) in ${pruneSeconds.toFixed(0)} s: ${Math.round(pruned / pruneSeconds)}/s`,
        );
        return { result, pruned, pruneSeconds };
      };
      const without = () => burst(scenario(`off${pair}`), burstSize, lead, pair * 1_000_000 + 500_000);
      log(`pair ${pair}/${pairs}`);
      // Alternate the order, so that neither side always runs on the warmer machine.
      let off: BurstResult;
      let on: Awaited<ReturnType<typeof withPruning>>;
      if (pair % 2 === 1) {
        off = await without();
        on = await withPruning();
      } else {
        on = await withPruning();
        off = await without();
      }
      results.push({ off, on: on.result, pruned: on.pruned, pruneSeconds: on.pruneSeconds });
    }
  } finally {
    await pool.end();
    await system.stop();
    await sim.stop();
  }
  const lines = results.map(
    (r, i) =>
      `| ${i + 1} | ${Math.round(r.off.sendsPerSecond)} | ${Math.round(r.on.sendsPerSecond)} | ` +
      `${((r.on.sendsPerSecond / r.off.sendsPerSecond - 1) * 100).toFixed(1)} % | ${r.off.lateness.p99} / ${r.on.lateness.p99} | ` +
      `${r.off.lost + r.on.lost} / ${r.off.duplicates + r.on.duplicates} | ${r.pruned} (${Math.round(r.pruned / r.pruneSeconds)}/s) |`,
  );
  const off = median(results.map((r) => r.off.sendsPerSecond));
  const on = median(results.map((r) => r.on.sendsPerSecond));
  const ratio = median(results.map((r) => r.on.sendsPerSecond / r.off.sendsPerSecond - 1));
  process.stdout.write(
    [
      '',
      `| pair | burst without pruning (sends/s) | with pruning (sends/s) | change | p99 lateness ms (without / with) | lost / dup | rows pruned during the burst |`,
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...lines,
      `| median | ${Math.round(off)} | ${Math.round(on)} | ${(ratio * 100).toFixed(1)} % (median of the pairs' changes) | | | |`,
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`bench-retention failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
