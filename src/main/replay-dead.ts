/**
 * `npm run replay-dead -- [--limit N]`: takes wake-ups from the dead-letter queue, puts each `failed`
 * message back to `queued` (attempts reset, due now) and publishes a new wake-up for it. Dead-letters
 * whose row is not `failed` (already replayed, or not a wake-up at all) are dropped with a log line.
 */
import { connectToAny } from '../broker/connect-any';
import { parseWakeUp } from '../broker/wake-up';
import { loadConfig } from '../config';
import { createLogger } from '../logger';
import { requeueFailed } from '../store/requeue-failed';
import { openCliContext } from './cli-context';
import { errorText } from '../loggable-error';

async function main(): Promise<void> {
  const limitArg = process.argv.indexOf('--limit');
  const limit = limitArg > 0 ? Number(process.argv[limitArg + 1]) : Number.POSITIVE_INFINITY;
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel, name: 'wechat-drip-replay' });
  const { pool, names, publisher, close } = await openCliContext(config, logger, 'wechat-drip replay');
  const model = await connectToAny(config.rabbitmqUrls);
  const channel = await model.createChannel();
  let replayed = 0;
  let dropped = 0;
  try {
    for (let n = 0; n < limit; n++) {
      const msg = await channel.get(names.dead, { noAck: false });
      if (!msg) break;
      const wakeUp = parseWakeUp(msg.content);
      const requeued = wakeUp ? await requeueFailed(pool, wakeUp.ids) : [];
      if (requeued.length > 0) {
        await publisher.publishWakeUp({ ids: requeued, dueAt: Date.now() }, 'relay');
        replayed += requeued.length;
      }
      if (!wakeUp || requeued.length < wakeUp.ids.length) {
        logger.warn({ ids: wakeUp?.ids ?? null }, 'dead-letter without a failed message; dropped');
        dropped += wakeUp ? wakeUp.ids.length - requeued.length : 1;
      }
      channel.ack(msg);
    }
  } finally {
    await model.close();
    await close();
  }
  process.stdout.write(`replayed ${replayed}, dropped ${dropped}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`replay failed: ${errorText(err)}\n`);
  process.exit(1);
});
