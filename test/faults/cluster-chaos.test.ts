import amqplib from 'amqplib';
import type { Service } from '../../src/main/start-service';
import {
  CHAOS_MESSAGES as N,
  createReceivedCounter,
  expectNoneLostNoneTwice,
  relayRepublished,
  scaledMs,
  scheduleTagged,
  settle,
  sleep,
  type Tally,
  tally,
  waitUntilQueued,
  writeChaosReport,
} from '../helpers/chaos';
import { createHarness, type Harness, waitFor } from '../helpers/harness';
import { healPartition, partition, partitionUnavailable } from '../helpers/partition';
import {
  clusterUnavailable,
  type ClusterNode,
  listening,
  type RabbitCluster,
  startRabbitCluster,
} from '../helpers/rabbit-cluster';
import { deliveriesOf, latenessOf, recoveryMs } from '../helpers/timings';

/**
 * The cluster scenarios (issue 16): three extra RabbitMQ nodes of the installed version, clustered, the
 * service given all three URLs; each scenario puts CHAOS_MESSAGES messages in flight (levels mode, quorum
 * queues), takes a node away, and counts from the simulator's record that none was lost and none sent
 * twice. The table, with each scenario's time to recover and lateness, goes to
 * test-artifacts/cluster-chaos-report.txt. The machine's own node (5672) is never touched.
 */
const unavailable = clusterUnavailable();
if (unavailable) console.info(`cluster scenarios skipped: ${unavailable}`);
const describeCluster = unavailable ? describe.skip : describe;

const results: Tally[] = [];
let cluster: RabbitCluster;
let h: Harness | undefined;
/** The scenario's service, for its metrics. */
let running: Service | undefined;
/** Why a partition cannot be made here (iptables missing or not allowed), or null. */
const partitionSkipped = unavailable ? null : partitionUnavailable();
if (partitionSkipped) console.info(`partition scenario skipped: ${partitionSkipped}`);

beforeAll(async () => {
  if (unavailable) return;
  cluster = await startRabbitCluster();
}, 300_000);
afterEach(async () => {
  await h?.close();
  h = undefined;
}, 60_000);
afterAll(async () => {
  await cluster?.close();
  if (unavailable) return;
  const notes = partitionSkipped ? [`partition: not made here: ${partitionSkipped}`] : [];
  writeChaosReport(
    results.concat(
      notes.map((note) => ({ ...tally('network partition of one node', [], new Map(), Date.now()), note })),
    ),
    'test-artifacts/cluster-chaos-report.txt',
    'RabbitMQ 3-node cluster',
  );
}, 60_000);

/** A harness whose service is given the three nodes' URLs, `first` first (where it connects). */
async function startOnCluster(first: ClusterNode, extra: Record<string, string> = {}): Promise<Service> {
  h = await createHarness({ RABBITMQ_URL: cluster.urlList(first), ...extra });
  running = await h.start();
  return running;
}

interface QueueInfo {
  name: string;
  leader: string;
  members: string[];
  messages: number;
}

async function queuesOf(prefix: string, via: ClusterNode): Promise<QueueInfo[]> {
  const out = await cluster.ctl(via, [
    'list_queues',
    '-q',
    'name',
    'leader',
    'members',
    'messages',
    '--formatter',
    'json',
  ]);
  return (JSON.parse(out) as QueueInfo[]).filter((q) => q.name.startsWith(`${prefix}.`));
}

/**
 * The queues among `names` that hold messages, read by passive declares on `via`: the count comes from
 * the queue's leader at once, where the CLI's lags behind the statistics emission (every 5 s) and costs
 * seconds of CPU per call on a loaded machine.
 */
async function holdingMessages(names: readonly string[], via: ClusterNode): Promise<string[]> {
  const conn = await amqplib.connect(via.url);
  try {
    const ch = await conn.createChannel();
    const counts: number[] = [];
    for (const name of names) counts.push((await ch.checkQueue(name)).messageCount);
    return names.filter((_, i) => counts[i] > 0);
  } finally {
    await conn.close();
  }
}

/** The node the service's connection is on: read from the server port in the connection's name. */
async function connectedNode(via: ClusterNode): Promise<ClusterNode | undefined> {
  const out = await cluster.ctl(via, ['list_connections', '-q', 'name', '--formatter', 'json']);
  const ports = (JSON.parse(out) as { name: string }[]).map((c) => Number(/:(\d+)$/.exec(c.name)?.[1]));
  return cluster.nodes.find((n) => ports.includes(n.amqpPort));
}

/**
 * Starts a killed node again a few seconds later, as its supervisor would, while the scenario goes on:
 * the other two carry the load until it has booted (10–20 s here) and rejoined.
 */
const restartLater = (node: ClusterNode): Promise<void> => sleep(2000).then(() => cluster.start(node));

/** Counts, records lateness and recovery, then asserts lost = 0 and duplicates = 0. */
async function verdict(
  scenario: string,
  tags: string[],
  counts: Map<string, number>,
  startedAt: number,
  faults: number[],
  note = '',
) {
  const deliveries = await deliveriesOf(h!, tags);
  const republished = await relayRepublished(running!);
  if (republished > 0) note = `${note}${note ? '; ' : ''}the relay re-issued ${republished} wake-ups`;
  const recovery = Math.max(...faults.map((at) => recoveryMs(deliveries, at)));
  const t: Tally = {
    ...tally(scenario, tags, counts, startedAt),
    recoveryS: Math.round(recovery / 100) / 10,
    lateness: latenessOf(deliveries),
    ...(note ? { note } : {}),
  };
  results.push(t);
  await expectNoneLostNoneTwice(h!, t, (args) => cluster.ctl(cluster.nodes[0], args));
}

describeCluster(`RabbitMQ cluster: ${N} messages per scenario, none lost, none sent twice`, () => {
  beforeEach(() => cluster.waitUntilHealthy(), 180_000);

  it(
    'the node holding the delay levels’ leaders killed (SIGKILL) while the messages wait in them',
    async () => {
      const service = await startOnCluster(cluster.nodes[0]);
      // RabbitMQ 3.10 gives a quorum queue `quorum_cluster_size` (3) members: every one is on all three.
      const names = cluster.nodes.map((n) => n.name).sort();
      const declared = await queuesOf(h!.prefix, cluster.nodes[1]);
      expect(declared.filter((q) => [...q.members].sort().join() !== names.join())).toEqual([]);
      expect(declared.length).toBeGreaterThan(3);
      const counter = createReceivedCounter(h!);
      const startedAt = Date.now();
      // Long enough that the levels still hold them when the kill comes on a loaded machine.
      const fromMs = scaledMs(15_000, 1);
      const tags = await scheduleTagged(h!, service, N, { fromMs, toMs: fromMs + scaledMs(3000, 0.4) });
      await waitUntilQueued(h!);
      const levels = declared.filter((q) => q.name.includes('.delay.'));
      let waiting: QueueInfo[] = [];
      const levelsHolding = async () => {
        const holding = await holdingMessages(
          levels.map((q) => q.name),
          cluster.nodes[1],
        );
        waiting = levels.filter((q) => holding.includes(q.name));
        return waiting.length > 0;
      };
      expect(await waitFor(levelsHolding, 12_000, 200)).toBe(true);
      const leaders = cluster.nodes.map((n) => waiting.filter((q) => q.leader === n.name).length);
      const victim = cluster.nodes[leaders.indexOf(Math.max(...leaders))];
      const killedAt = Date.now();
      await cluster.kill(victim);
      const restarted = restartLater(victim);
      await settle(() => counter.counts().size >= N, scaledMs(60_000, 6));
      const note = `${victim.name} led ${Math.max(...leaders)} of the ${waiting.length} levels holding messages`;
      await verdict('levels’ leader node SIGKILLed', tags, counter.counts(), startedAt, [killedAt], note);
      await restarted;
    },
    scaledMs(240_000, 12),
  );

  it(
    'the node the worker consumes from killed (SIGKILL) mid-burst',
    async () => {
      const target = cluster.nodes[1];
      const service = await startOnCluster(target);
      h!.simulator.setFaults({ latencyMs: 20 });
      expect((await connectedNode(cluster.nodes[0]))?.name).toBe(target.name);
      const counter = createReceivedCounter(h!);
      const startedAt = Date.now();
      const tags = await scheduleTagged(h!, service, N, { fromMs: 0, toMs: scaledMs(1000, 0.2) });
      expect(await waitFor(() => counter.counts().size >= N / 4, scaledMs(20_000, 2), 10)).toBe(true);
      const killedAt = Date.now();
      await cluster.kill(target);
      const restarted = restartLater(target);
      await settle(() => counter.counts().size >= N, scaledMs(60_000, 6));
      await verdict('consumer’s node SIGKILLed mid-burst', tags, counter.counts(), startedAt, [killedAt]);
      await restarted;
    },
    scaledMs(240_000, 12),
  );

  it(
    'a rolling restart of the three nodes, one at a time, while messages are scheduled and fall due',
    async () => {
      const service = await startOnCluster(cluster.nodes[0]);
      const counter = createReceivedCounter(h!);
      const startedAt = Date.now();
      const tags: string[] = [];
      const stoppedAt: number[] = [];
      for (const node of cluster.nodes) {
        // Each wave falls due while its node is down or rejoining.
        tags.push(
          ...(await scheduleTagged(h!, service, Math.ceil(N / 3), { fromMs: 1000, toMs: scaledMs(8000, 1) })),
        );
        // As an operator would: stop a node only when no quorum queue depends on it.
        expect(
          await waitFor(
            () =>
              cluster.ctl(node, ['check_if_node_is_quorum_critical'], 'rabbitmq-queues').then(
                () => true,
                () => false,
              ),
            60_000,
            1000,
          ),
        ).toBe(true);
        stoppedAt.push(Date.now());
        await cluster.stop(node);
        await cluster.start(node);
      }
      await settle(() => counter.counts().size >= tags.length, scaledMs(60_000, 6));
      await verdict('rolling restart of all three nodes', tags, counter.counts(), startedAt, stoppedAt);
    },
    scaledMs(400_000, 20),
  );

  (partitionSkipped ? it.skip : it)(
    'one node partitioned away (pause_minority) from the other two while the messages wait and fall due',
    async () => {
      const [c1, c2, c3] = cluster.nodes;
      const service = await startOnCluster(c3);
      // The service is on the node that will be cut off: it has to move to the majority.
      expect((await connectedNode(c1))?.name).toBe(c3.name);
      const counter = createReceivedCounter(h!);
      const startedAt = Date.now();
      const fromMs = scaledMs(3000, 0.3);
      const tags = await scheduleTagged(h!, service, N, { fromMs, toMs: fromMs + scaledMs(15_000, 1) });
      await waitUntilQueued(h!);
      const cutAt = Date.now();
      try {
        await partition(c3, [c1, c2]);
        // The majority notices (10 s net tick); c3, alone, pauses and closes its clients' connections.
        const nodesRunning = async () =>
          await cluster.ctl(c1, ['cluster_status', '--formatter', 'json']).then(
            (o) => (JSON.parse(o) as { running_nodes: string[] }).running_nodes.length,
            () => 3,
          );
        expect(await waitFor(async () => (await nodesRunning()) === 2, 90_000, 1000)).toBe(true);
        await sleep(3000);
      } finally {
        await healPartition();
      }
      // pause_minority resumes the paused node once it sees the majority again, usually within seconds;
      // once in seven runs here it was still not listening two minutes later. Then it is restarted, as its
      // supervisor or an operator would, and the report says so: what is counted is the service's part.
      let note = '';
      const resumed = await waitFor(() => listening(c3.amqpPort), 60_000, 1000);
      if (!resumed) {
        note = `${c3.name} did not resume by itself within 60 s of the heal: restarted`;
        await cluster.kill(c3);
        await cluster.start(c3);
      }
      await cluster.waitUntilHealthy();
      await settle(() => counter.counts().size >= N, scaledMs(60_000, 6));
      await verdict('one node partitioned away', tags, counter.counts(), startedAt, [cutAt], note);
    },
    scaledMs(300_000, 15),
  );
});
