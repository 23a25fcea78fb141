import { AppError } from '../errors';
import type { Logger } from '../logger';
import { connectToAny } from './connect-any';

export interface ProbeResult {
  readonly pluginAvailable: boolean;
  /** Why: for the start-up log and /readyz. */
  readonly reason: string;
  readonly serverVersion: string;
}

/** Major.minor at or above which the plugin cannot exist (Mnesia removed in 4.3). */
const NO_PLUGIN_FROM: readonly [number, number] = [4, 3];

/**
 * Reads the broker's answer to declaring an x-delayed-message exchange. Brokers ≤ 3.13.2 close the
 * *connection* with 503 COMMAND_INVALID (pending RPCs then fail with "Channel ended…", the cause comes
 * on the connection); later ones close the *channel* with 406 PRECONDITION_FAILED
 * (reference/rabbitmq.md §2). Returns the verdict, or throws for a configuration bug.
 */
export function classifyProbeError(err: unknown, connectionError?: unknown): string {
  const text = [err, connectionError]
    .map((e) => (e instanceof Error ? e.message : typeof e === 'string' ? e : ''))
    .join(' | ');
  if (/x-delayed-type/.test(text)) {
    throw new AppError('broker_config', `the delayed exchange declaration was rejected: ${text}`);
  }
  const code = (connectionError as { code?: number } | undefined)?.code ?? (err as { code?: number }).code;
  if (/unknown exchange type|invalid exchange type|COMMAND_INVALID|PRECONDITION_FAILED/i.test(text)) {
    return `plugin absent (${code ?? 'no code'}: ${text})`;
  }
  if (code === 406 || code === 503 || /Channel ended, no reply will be forthcoming/.test(text)) {
    return `plugin absent (${code ?? 'channel ended'})`;
  }
  throw new AppError(
    'broker_unavailable',
    `could not probe RabbitMQ for the delayed-message plugin: ${text}`,
    {
      retryable: true,
      cause: err,
    },
  );
}

function versionAtLeast(version: string, [major, minor]: readonly [number, number]): boolean {
  const [a = 0, b = 0] = version.split('.').map((n) => Number.parseInt(n, 10));
  return a > major || (a === major && b >= minor);
}

/**
 * Probes for the delayed-message plugin on a throw-away connection to the first node of `urls` that
 * answers (never inside a managed channel's
 * setup, where a 503 would turn into a reconnect loop). On success the durable delayed exchange stays
 * declared, as production needs it.
 */
export async function probeDelayedPlugin(
  urls: readonly string[],
  exchange: string,
  logger: Logger,
): Promise<ProbeResult> {
  const model = await connectToAny(urls, { clientProperties: { connection_name: 'wechat-drip probe' } });
  const serverVersion = String(model.connection.serverProperties.version ?? 'unknown');
  let connectionError: unknown;
  model.on('error', (err) => {
    connectionError = err;
  });
  try {
    if (versionAtLeast(serverVersion, NO_PLUGIN_FROM)) {
      return {
        pluginAvailable: false,
        reason: `RabbitMQ ${serverVersion} ≥ 4.3 has no plugin`,
        serverVersion,
      };
    }
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    try {
      await channel.assertExchange(exchange, 'x-delayed-message', {
        durable: true,
        arguments: { 'x-delayed-type': 'direct' },
      });
      return { pluginAvailable: true, reason: 'x-delayed-message exchange declared', serverVersion };
    } catch (err) {
      // Give the connection's close frame a moment to arrive: it carries the real cause on old brokers.
      await new Promise((r) => setTimeout(r, 50));
      const reason = classifyProbeError(err, connectionError);
      logger.debug({ reason }, 'delayed-message plugin probe failed');
      return { pluginAvailable: false, reason, serverVersion };
    }
  } finally {
    await model.close().catch(() => undefined);
  }
}
