import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = path.resolve(__dirname, '../../scripts/service-stamps.js');

/** When a Postgres and a RabbitMQ last started, as scripts/service-stamps.js reads them. */
export interface ServiceStamps {
  readonly postgres: { readonly startedAt?: string; readonly error?: string };
  readonly rabbitmq: {
    readonly pid?: number;
    readonly startedAtTicks?: number;
    readonly listenerInode?: number;
    readonly error?: string;
  };
}

/** The stamps of the servers at `databaseUrl` and `rabbitUrl` (by default the ones the tests use). */
export async function readServiceStamps(databaseUrl = '', rabbitUrl = ''): Promise<ServiceStamps> {
  const { stdout } = await run(process.execPath, [SCRIPT, databaseUrl, rabbitUrl]);
  return JSON.parse(stdout) as ServiceStamps;
}

/**
 * What restarted between two readings, one sentence each; empty when both servers are the ones read
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
  const [mq0, mq1] = [before.rabbitmq, after.rabbitmq];
  if (mq0.pid !== undefined) {
    if (mq1.pid !== mq0.pid || mq1.startedAtTicks !== mq0.startedAtTicks) {
      changes.push(`RabbitMQ was restarted or stopped: pid ${mq0.pid} before, ${mq1.pid ?? mq1.error} after`);
    } else if (mq1.listenerInode !== mq0.listenerInode) {
      changes.push(
        `RabbitMQ's broker was stopped and started (stop_app / start_app): its listening socket was reopened`,
      );
    }
  }
  return changes;
}
