import { execFile } from 'node:child_process';
import os from 'node:os';
import { promisify } from 'node:util';
import { packageVersion } from './package-version';
import type { BenchSettings } from './settings';

const run = promisify(execFile);

async function firstLine(cmd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(cmd, args);
    return stdout.trim().split('\n')[0];
  } catch {
    return 'unknown';
  }
}

/** The environment, as a Markdown list: hardware, services and library versions. */
export async function describeMachine(settings: BenchSettings): Promise<string> {
  const cpus = os.cpus();
  const redis = await firstLine('redis-server', ['--version']);
  return [
    `- Machine: ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}`,
    `- Node ${process.version}; PostgreSQL ${await firstLine('psql', ['-At', settings.databaseUrl, '-c', 'SHOW server_version'])}; ` +
      `RabbitMQ ${await firstLine('rabbitmqctl', ['version'])}${settings.pluginUrl ? ' (+ a plugin broker at RABBITMQ_PLUGIN_URL)' : ' (no delayed-message plugin)'}; ` +
      `Redis ${/v=(\S+)/.exec(redis)?.[1] ?? redis}`,
    `- Libraries: amqplib ${packageVersion('amqplib')}, amqp-connection-manager ${packageVersion('amqp-connection-manager')}, ` +
      `pg ${packageVersion('pg')}, undici ${packageVersion('undici')}, BullMQ ${packageVersion('bullmq')} with ioredis ${packageVersion('ioredis')}, ` +
      `pg-boss ${packageVersion('pg-boss')} (the newest on Node 20: 11+ requires Node 22)`,
    '- All services, the WeChat simulator and every system share these cores; the systems run one after another.',
  ].join('\n');
}
