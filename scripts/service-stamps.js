#!/usr/bin/env node
// Prints, as one JSON object, when the Postgres and the RabbitMQ the tests use last started:
//   postgres: pg_postmaster_start_time() of DATABASE_URL;
//   rabbitmq: the process listening on RABBITMQ_URL's port, its start time (clock ticks since boot, from
//   /proc) and the inode of that listening socket (`rabbitmqctl stop_app` / `start_app` keeps the Erlang
//   VM but closes and reopens the socket).
//   pluginRabbitmq: the same for RABBITMQ_PLUGIN_URL's broker (the plugin-mode tests'), when it is set.
// `make test` writes it before the suite; test/services/ compares it with a reading after the suite.
//   node scripts/service-stamps.js [DATABASE_URL] [RABBITMQ_URL]
const { execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { Client } = require('pg');

const databaseUrl = process.argv[2] || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const rabbitUrl = (process.argv[3] || process.env.RABBITMQ_URL || 'amqp://guest:guest@127.0.0.1:5672').split(
  ',',
)[0];

async function postgres() {
  const client = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    const { rows } = await client.query('SELECT pg_postmaster_start_time()::text AS started');
    return { startedAt: rows[0].started };
  } catch (err) {
    return { error: err.message };
  } finally {
    await client.end().catch(() => undefined);
  }
}

const pluginUrl = process.env.RABBITMQ_PLUGIN_URL || '';

/** The listener of the broker's port on this machine: its owner's pid and start time, and its inode. */
function rabbitmq(url) {
  const { hostname, port } = new URL(url);
  if (!['127.0.0.1', 'localhost', '::1'].includes(hostname))
    return { error: `${hostname} is not this machine` };
  try {
    const line = execFileSync('ss', ['-ltnpeH', `sport = :${port || 5672}`], { encoding: 'utf8' }).trim();
    const pid = Number(/pid=(\d+)/.exec(line)?.[1]);
    const inode = Number(/ino:(\d+)/.exec(line)?.[1]);
    if (!pid || !inode) return { error: `nothing listens on port ${port || 5672}` };
    // Field 22 of /proc/<pid>/stat, counted after the command name (which may hold spaces).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startedAtTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return { pid, startedAtTicks, listenerInode: inode };
  } catch (err) {
    return { error: err.message };
  }
}

postgres().then((pg) => {
  const plugin = pluginUrl ? { pluginRabbitmq: rabbitmq(pluginUrl) } : {};
  console.log(JSON.stringify({ postgres: pg, rabbitmq: rabbitmq(rabbitUrl), ...plugin }));
});
