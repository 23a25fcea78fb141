import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = path.resolve(__dirname, '../../scripts/service-stamps.js');

/** When a RabbitMQ node last started, and its listening socket's inode. */
interface BrokerStamp {
  readonly pid?: number;
  readonly startedAtTicks?: number;
  readonly listenerInode?: number;
  readonly error?: string;
}

/**
 * When a Postgres and a RabbitMQ last started, as scripts/service-stamps.js reads them, and the plugin
 * broker (RABBITMQ_PLUGIN_URL) when one was given.
 */
export interface ServiceStamps {
  readonly postgres: { readonly startedAt?: string; readonly error?: string };
  readonly rabbitmq: BrokerStamp;
  readonly pluginRabbitmq?: BrokerStamp;
}

/** What changed about one broker between two readings, or null when nothing did (or it was not read). */
function brokerChange(
  name: string,
  mq0: BrokerStamp | undefined,
  mq1: BrokerStamp | undefined,
): string | null {
  if (mq0?.pid === undefined) return null;
  if (mq1?.pid !== mq0.pid || mq1.startedAtTicks !== mq0.startedAtTicks) {
    return `${name} was restarted or stopped: pid ${mq0.pid} before, ${mq1?.pid ?? mq1?.error} after`;
  }
  if (mq1.listenerInode !== mq0.listenerInode) {
    return `${name}'s broker was stopped and started (stop_app / start_app): its listening socket was reopened`;
  }
  return null;
}

/** The stamps of the servers at `databaseUrl` and `rabbitUrl` (by default the ones the tests use). */
export async function readServiceStamps(databaseUrl = '', rabbitUrl = ''): Promise<ServiceStamps> {
  const { stdout } = await run(process.execPath, [SCRIPT, databaseUrl, rabbitUrl]);
  return JSON.parse(stdout) as ServiceStamps;
}

/**
 * What restarted between two readings, one sentence each; empty when the servers are the ones read
 * before. A server that could not be read before is not judged (it is not one this machine runs).
 */
export function restartedServices(before: ServiceStamps, after: ServiceStamps): string[] {
  const changes: string[] = [];
  const [pg0, pg1] = [before.postgres, after.postgres];
  if (pg0.startedAt !== undefined && pg1.startedAt !== pg0.startedAt) {
    changes.push(
      `Postgres was restarted or stopped: started ${pg0.startedAt} before, ${pg1.startedAt ?? pg1.error} after`,
    );
  }
  for (const change of [
    brokerChange('RabbitMQ', before.rabbitmq, after.rabbitmq),
    brokerChange('The plugin broker (RABBITMQ_PLUGIN_URL)', before.pluginRabbitmq, after.pluginRabbitmq),
  ])
    if (change) changes.push(change);
  return changes;
}
