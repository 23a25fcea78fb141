import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { healPartition } from './partition';

const run = promisify(execFile);

/** Every file of the extra nodes lives here: a crashed run's leftovers are found (and removed) at the next start. */
export const CLUSTER_DIR = path.join(tmpdir(), 'wechat-drip-cluster');
const SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';
/** The installed broker runs as this user, with its Erlang cookie in its home: the extra nodes share both. */
const RABBIT_USER = 'rabbitmq';
const RABBIT_HOME = '/var/lib/rabbitmq';
const STARTUP_MS = 120_000;

export interface ClusterNode {
  /** Erlang node name, e.g. drip-c1@localhost. Never the machine's own node (rabbit@…). */
  readonly name: string;
  readonly amqpPort: number;
  readonly distPort: number;
  /** The address its outgoing distribution connections come from (127.0.0.1N): what a partition drops. */
  readonly distIp: string;
  readonly url: string;
  readonly dir: string;
}

export interface RabbitCluster {
  readonly nodes: readonly ClusterNode[];
  /** The nodes' amqp URLs, comma-separated, in `first`'s order first: RABBITMQ_URL for the service. */
  urlList(first?: ClusterNode): string;
  /** `rabbitmqctl -n <node> …` (or another CLI tool): stdout. */
  ctl(node: ClusterNode, args: readonly string[], tool?: string): Promise<string>;
  /** SIGKILL of the node's Erlang VM, by the OS pid it reported at start; waits until it is gone. */
  kill(node: ClusterNode): Promise<void>;
  /** A clean stop (`rabbitmqctl stop`), for a rolling restart. */
  stop(node: ClusterNode): Promise<void>;
  /** Starts the node again with the same environment, and waits until all three run as one cluster. */
  start(node: ClusterNode): Promise<void>;
  /** Waits until every node runs and sees the other two. */
  waitUntilHealthy(): Promise<void>;
  /** Stops the three nodes and deletes their data. */
  close(): Promise<void>;
}

/** Why the cluster cannot be started on this machine, or null when it can. */
export function clusterUnavailable(): string | null {
  if (!existsSync(SERVER)) return `no RabbitMQ server at ${SERVER}`;
  if (process.getuid?.() !== 0) return `the extra nodes are started as ${RABBIT_USER}, which needs root`;
  return null;
}

const baseEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: RABBIT_HOME,
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
};

const pidFile = (node: ClusterNode) => path.join(node.dir, 'os.pid');

/** The environment that makes `rabbitmq-server` a node of its own: name, ports, directories, config. */
function nodeEnv(node: ClusterNode): Record<string, string> {
  return {
    ...baseEnv,
    RABBITMQ_NODENAME: node.name,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(node.amqpPort),
    RABBITMQ_DIST_PORT: String(node.distPort),
    RABBITMQ_MNESIA_BASE: path.join(node.dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(node.dir, 'log'),
    RABBITMQ_PID_FILE: path.join(node.dir, 'rabbitmq.pid'),
    // No plugins: no management or prometheus listener to clash with the machine's own node.
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(node.dir, 'enabled_plugins'),
    RABBITMQ_CONFIG_FILE: path.join(node.dir, 'rabbitmq.conf'),
    // Not the machine's rabbitmq-env.conf: it names the main node.
    RABBITMQ_CONF_ENV_FILE: path.join(node.dir, 'rabbitmq-env.conf'),
    // One scheduler (2 shared cores); distribution connections from the node's own address, so that a
    // partition can drop them; a 10 s net tick, so that a partition is noticed in seconds, not a minute.
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: `+S 1:1 -kernel inet_dist_connect_options [{ip,{${node.distIp.replace(/\./g, ',')}}}] -kernel net_ticktime 10`,
  };
}

function writeNodeFiles(node: ClusterNode): void {
  mkdirSync(node.dir, { recursive: true });
  writeFileSync(path.join(node.dir, 'enabled_plugins'), '[].\n');
  writeFileSync(path.join(node.dir, 'rabbitmq-env.conf'), '');
  writeFileSync(
    path.join(node.dir, 'rabbitmq.conf'),
    ['cluster_partition_handling = pause_minority', 'loopback_users = none', ''].join('\n'),
  );
}

async function asRabbit(command: string, args: readonly string[], env: Record<string, string>) {
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return run('runuser', ['-u', RABBIT_USER, '--', 'env', '-i', ...envArgs, command, ...args], {
    cwd: RABBIT_HOME,
    maxBuffer: 16 * 1024 * 1024,
  });
}

async function ctlOn(node: ClusterNode, args: readonly string[], tool = 'rabbitmqctl'): Promise<string> {
  return (await asRabbit(`/usr/lib/rabbitmq/bin/${tool}`, ['-n', node.name, ...args], baseEnv)).stdout;
}

/**
 * True while `pid` is the Erlang VM of the node `name` (a pid file may outlive its process, and a pid be
 * reused). By its environment: 3.10 starts distribution at boot, so the name is not on its command line.
 */
function runs(pid: number, name: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`RABBITMQ_NODENAME=${name}`);
  } catch {
    return false;
  }
}

async function killPid(pid: number, name: string): Promise<void> {
  if (runs(pid, name)) process.kill(pid, 'SIGKILL');
  const deadline = Date.now() + 10_000;
  while (runs(pid, name) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}

/** SIGKILL of the node by the OS pid it reported at start (its pid file). */
async function killByPidFile(node: ClusterNode): Promise<void> {
  if (existsSync(pidFile(node))) await killPid(Number(readFileSync(pidFile(node), 'utf8')), node.name);
}

/**
 * Every process that is the node `name` (found by its environment): also one whose start never got
 * as far as writing its pid file.
 */
function pidsOfNode(name: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => runs(pid, name));
}

/** Kills what a run left (found by node name in its environment), lifts its partition, deletes its data. */
async function removeNodes(): Promise<void> {
  await healPartition();
  for (let i = 1; i <= 3; i++) {
    const name = `drip-c${i}@localhost`;
    for (const pid of pidsOfNode(name)) await killPid(pid, name);
  }
  rmSync(CLUSTER_DIR, { recursive: true, force: true });
}

/** True once something accepts TCP connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const answer = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => answer(true));
    socket.once('error', () => answer(false));
  });
}

/**
 * Starts the node (`-detached`) and waits until it serves amqp, by its port rather than by the CLI (each
 * CLI call costs a second of CPU, which the booting nodes need); then records its OS pid.
 */
async function bootNode(node: ClusterNode): Promise<void> {
  await asRabbit(SERVER, ['-detached'], nodeEnv(node));
  const deadline = Date.now() + STARTUP_MS;
  while (!(await listening(node.amqpPort))) {
    if (Date.now() > deadline) throw new Error(`${node.name} did not open its amqp port ${node.amqpPort}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  await ctlOn(node, ['await_startup', '--timeout', '60']);
  const [pid] = pidsOfNode(node.name).filter(
    (p) => readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'beam.smp',
  );
  writeFileSync(pidFile(node), String(pid));
}

/**
 * Starts three extra RabbitMQ nodes of the installed version (drip-c1…c3@localhost, ports of their own,
 * data under CLUSTER_DIR), joins c2 and c3 to c1, and waits until the cluster is healthy. The machine's
 * own node is never named to any command.
 */
export async function startRabbitCluster(): Promise<RabbitCluster> {
  await removeNodes();
  const nodes: ClusterNode[] = [];
  for (let i = 1; i <= 3; i++) {
    const amqpPort = await freePort();
    nodes.push({
      name: `drip-c${i}@localhost`,
      amqpPort,
      distPort: await freePort(),
      distIp: `127.0.0.1${i}`,
      url: `amqp://guest:guest@127.0.0.1:${amqpPort}`,
      dir: path.join(CLUSTER_DIR, `c${i}`),
    });
  }
  for (const node of nodes) writeNodeFiles(node);
  await run('chown', ['-R', `${RABBIT_USER}:${RABBIT_USER}`, CLUSTER_DIR]);
  const cluster = createCluster(nodes);
  try {
    await Promise.all(nodes.map(bootNode));
    for (const node of nodes.slice(1)) {
      await ctlOn(node, ['stop_app']);
      await ctlOn(node, ['join_cluster', nodes[0].name]);
      await ctlOn(node, ['start_app']);
    }
    await cluster.waitUntilHealthy();
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}

function createCluster(nodes: readonly ClusterNode[]): RabbitCluster {
  const cluster: RabbitCluster = {
    nodes,
    urlList: (first = nodes[0]) => [first, ...nodes.filter((n) => n !== first)].map((n) => n.url).join(','),
    ctl: (node, args, tool) => ctlOn(node, args, tool),
    kill: (node) => killByPidFile(node),
    async stop(node) {
      await ctlOn(node, ['stop']);
    },
    async start(node) {
      await bootNode(node);
      await cluster.waitUntilHealthy();
    },
    async waitUntilHealthy() {
      const deadline = Date.now() + STARTUP_MS;
      for (;;) {
        const running = await Promise.all(nodes.map((n) => runningNodes(n).catch(() => [])));
        if (running.every((r) => r.length === nodes.length)) return;
        if (Date.now() > deadline) throw new Error(`cluster not healthy: ${JSON.stringify(running)}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    },
    close: removeNodes,
  };
  return cluster;
}

async function runningNodes(node: ClusterNode): Promise<string[]> {
  const status = JSON.parse(await ctlOn(node, ['cluster_status', '--formatter', 'json'])) as {
    running_nodes: string[];
  };
  return status.running_nodes;
}

/** A single extra node of its own, not clustered: for a test that stops the broker the service uses. */
export interface RabbitNode {
  readonly node: ClusterNode;
  /** A clean stop (`rabbitmqctl stop`); waits until its Erlang VM is gone. */
  stop(): Promise<void>;
  /** Starts it again with the same name, ports and data (its durable queues come back). */
  start(): Promise<void>;
  /** Kills it if it runs and deletes its data. */
  close(): Promise<void>;
}

const SOLO_NAME = 'drip-solo@localhost';
const SOLO_DIR = path.join(tmpdir(), 'wechat-drip-solo');

async function removeSolo(): Promise<void> {
  for (const pid of pidsOfNode(SOLO_NAME)) await killPid(pid, SOLO_NAME);
  rmSync(SOLO_DIR, { recursive: true, force: true });
}

/**
 * Starts one extra RabbitMQ node of the installed version (drip-solo@localhost, ports of its own, data under
 * SOLO_DIR), as the cluster's nodes are started. The machine's own node is never named to any command.
 */
export async function startRabbitNode(): Promise<RabbitNode> {
  await removeSolo();
  const amqpPort = await freePort();
  const node: ClusterNode = {
    name: SOLO_NAME,
    amqpPort,
    distPort: await freePort(),
    distIp: '127.0.0.1',
    url: `amqp://guest:guest@127.0.0.1:${amqpPort}`,
    dir: SOLO_DIR,
  };
  writeNodeFiles(node);
  await run('chown', ['-R', `${RABBIT_USER}:${RABBIT_USER}`, SOLO_DIR]);
  try {
    await bootNode(node);
  } catch (err) {
    await removeSolo();
    throw err;
  }
  return {
    node,
    async stop() {
      const pid = Number(readFileSync(pidFile(node), 'utf8'));
      await ctlOn(node, ['stop']);
      const deadline = Date.now() + 30_000;
      while (runs(pid, node.name) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    },
    start: () => bootNode(node),
    close: removeSolo,
  };
}
