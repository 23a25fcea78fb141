import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';
import { healPartition } from './partition';
import { OWNER_PID, privateInstanceDir, privateInstancesUnavailable, runAs } from './private-instances';

const run = promisify(execFile);

const RABBIT_LIB = '/usr/lib/rabbitmq/lib';
const SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server';
/** The installed broker runs as this user, with its Erlang cookie in its home: the private nodes share both. */
const RABBIT_USER = 'rabbitmq';
const RABBIT_HOME = '/var/lib/rabbitmq';
const STARTUP_MS = 120_000;
const DELAYED_PLUGIN = 'rabbitmq_delayed_message_exchange';

export interface ClusterNode {
  /** Erlang node name, drip-<test pid>-<tag>@localhost. Never the machine's own node (rabbit@…). */
  readonly name: string;
  readonly amqpPort: number;
  readonly distPort: number;
  /** The address its outgoing distribution connections come from (127.0.0.1N): what a partition drops. */
  readonly distIp: string;
  readonly url: string;
  readonly dir: string;
  /** A directory holding the delayed-message plugin, enabled on this node; none when empty. */
  readonly pluginDir: string;
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

/** Why a private node (or cluster) cannot be started on this machine, or null when it can. */
export function clusterUnavailable(): string | null {
  if (!existsSync(SERVER)) return `no RabbitMQ server at ${SERVER}`;
  return privateInstancesUnavailable();
}

/** The installed broker's own plugins directory. */
function installedPlugins(): string {
  const server = readdirSync(RABBIT_LIB).find((d) => d.startsWith('rabbitmq_server-'));
  return path.join(RABBIT_LIB, server ?? 'rabbitmq_server', 'plugins');
}

const hasDelayedPlugin = (dir: string): boolean =>
  existsSync(dir) && readdirSync(dir).some((d) => d.startsWith(`${DELAYED_PLUGIN}-`));

/**
 * A directory holding the delayed-message plugin built for the installed RabbitMQ:
 * RABBITMQ_DELAYED_PLUGIN_DIR, else the installed plugins when they include it; null when there is none.
 */
export function delayedPluginDir(): string | null {
  const candidates = [process.env.RABBITMQ_DELAYED_PLUGIN_DIR ?? '', installedPlugins()];
  return candidates.find((dir) => dir !== '' && hasDelayedPlugin(dir)) ?? null;
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
    // No plugins but the delayed-message one when asked for: no management or prometheus listener to
    // clash with the machine's own node.
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(node.dir, 'enabled_plugins'),
    RABBITMQ_PLUGINS_DIR: [installedPlugins(), node.pluginDir].filter(Boolean).join(':'),
    RABBITMQ_CONFIG_FILE: path.join(node.dir, 'rabbitmq.conf'),
    // Not the machine's rabbitmq-env.conf: it names the main node.
    RABBITMQ_CONF_ENV_FILE: path.join(node.dir, 'rabbitmq-env.conf'),
    // One scheduler (2 shared cores); distribution connections from the node's own address, so that a
    // partition can drop them; a 10 s net tick, so that a partition is noticed in seconds, not a minute.
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: `+S 1:1 -kernel inet_dist_connect_options [{ip,{${node.distIp.replace(/\./g, ',')}}}] -kernel net_ticktime 10`,
  };
}

function writeNodeFiles(node: ClusterNode): void {
  writeFileSync(path.join(node.dir, 'enabled_plugins'), node.pluginDir ? `[${DELAYED_PLUGIN}].\n` : '[].\n');
  writeFileSync(path.join(node.dir, 'rabbitmq-env.conf'), '');
  writeFileSync(
    path.join(node.dir, 'rabbitmq.conf'),
    ['cluster_partition_handling = pause_minority', 'loopback_users = none', ''].join('\n'),
  );
}

const asRabbit = (command: string, args: readonly string[], env: Record<string, string>) =>
  runAs(RABBIT_USER, command, args, env, RABBIT_HOME);

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
  try {
    if (runs(pid, name)) process.kill(pid, 'SIGKILL');
  } catch (err) {
    // Gone between the look and the kill (a node's helper processes exit with it).
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
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

/** Kills the nodes (found by name in their environment) and deletes their data. */
async function removeNodes(nodes: readonly ClusterNode[]): Promise<void> {
  for (const node of nodes) {
    for (const pid of pidsOfNode(node.name)) await killPid(pid, node.name);
    rmSync(node.dir, { recursive: true, force: true });
  }
}

/** A node of its own: a name with this test process's pid, free ports, a directory under PRIVATE_ROOT. */
async function newNode(tag: string, distIp: string, pluginDir = ''): Promise<ClusterNode> {
  const amqpPort = await freePort();
  const node: ClusterNode = {
    name: `drip-${OWNER_PID}-${tag}@localhost`,
    amqpPort,
    distPort: await freePort(),
    distIp,
    url: `amqp://guest:guest@127.0.0.1:${amqpPort}`,
    dir: await privateInstanceDir(`rabbit-${tag}`, RABBIT_USER),
    pluginDir,
  };
  writeNodeFiles(node);
  await run('chown', ['-R', `${RABBIT_USER}:${RABBIT_USER}`, node.dir]);
  return node;
}

/** True once something accepts TCP connections on 127.0.0.1:`port`. */
export function listening(port: number): Promise<boolean> {
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

let clusters = 0;

/**
 * Starts three private RabbitMQ nodes of the installed version (drip-<pid>-c1…c3@localhost, ports and
 * data of their own), joins c2 and c3 to c1, and waits until the cluster is healthy. The machine's own
 * node is never named to any command.
 */
export async function startRabbitCluster(): Promise<RabbitCluster> {
  // What a crashed cluster scenario left in iptables.
  await healPartition();
  const n = ++clusters;
  const nodes: ClusterNode[] = [];
  for (let i = 1; i <= 3; i++) nodes.push(await newNode(`k${n}c${i}`, `127.0.0.1${i}`));
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
        // A node still booting has no amqp port yet: asking the CLI (a second of CPU a call, which the
        // booting node needs) only once every port is open.
        const open = await Promise.all(nodes.map((n) => listening(n.amqpPort)));
        const running = open.every(Boolean)
          ? await Promise.all(nodes.map((n) => runningNodes(n).catch(() => [])))
          : open.map((o, i) => (o ? ['?'] : [`${nodes[i].name} not listening`]));
        if (running.every((r) => r.length === nodes.length)) return;
        if (Date.now() > deadline) throw new Error(`cluster not healthy: ${JSON.stringify(running)}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    },
    async close() {
      await healPartition();
      await removeNodes(nodes);
    },
  };
  return cluster;
}

async function runningNodes(node: ClusterNode): Promise<string[]> {
  const status = JSON.parse(await ctlOn(node, ['cluster_status', '--formatter', 'json'])) as {
    running_nodes: string[];
  };
  return status.running_nodes;
}

/** A single private node, not clustered: for a test that stops or restarts the broker the service uses. */
export interface RabbitNode {
  readonly node: ClusterNode;
  /** `rabbitmqctl -n <node> …`, e.g. `stop_app` / `start_app` (the node stays up, the broker stops). */
  ctl(args: readonly string[]): Promise<string>;
  /** A clean stop (`rabbitmqctl stop`); waits until its Erlang VM is gone. */
  stop(): Promise<void>;
  /** Starts it again with the same name, ports and data (its durable queues come back). */
  start(): Promise<void>;
  /** `start_app` when its amqp port is closed (a test that failed while the broker was stopped). */
  ensureServing(): Promise<void>;
  /** Kills it if it runs and deletes its data. */
  close(): Promise<void>;
}

let solos = 0;

/**
 * Starts one private RabbitMQ node of the installed version (drip-<pid>-s<n>@localhost, ports and data
 * of its own), as the cluster's nodes are started; with `pluginDir`, the delayed-message plugin from
 * there is enabled on it. The machine's own node is never named to any command.
 */
export async function startRabbitNode(opts: { pluginDir?: string } = {}): Promise<RabbitNode> {
  const node = await newNode(`s${++solos}`, '127.0.0.1', opts.pluginDir);
  const close = () => removeNodes([node]);
  try {
    await bootNode(node);
  } catch (err) {
    await close();
    throw err;
  }
  return {
    node,
    ctl: (args) => ctlOn(node, args),
    async stop() {
      const pid = Number(readFileSync(pidFile(node), 'utf8'));
      await ctlOn(node, ['stop']);
      const deadline = Date.now() + 30_000;
      while (runs(pid, node.name) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    },
    start: () => bootNode(node),
    async ensureServing() {
      if (!(await listening(node.amqpPort))) await ctlOn(node, ['start_app']);
    },
    close,
  };
}
