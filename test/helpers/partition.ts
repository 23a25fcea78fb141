import { execFile, execFileSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ClusterNode } from './rabbit-cluster';

const run = promisify(execFile);

/** The iptables chain of the cluster tests' rules: only it is ever flushed, and only its jump removed. */
const CHAIN = 'DRIP-CLUSTER';

const iptables = (...args: string[]) => run('iptables', ['-w', ...args]);

/**
 * Why a partition cannot be made here (no iptables, or no right to use it), or null when it can.
 * Installs iptables first when missing (scripts/ensure-command.sh).
 */
export function partitionUnavailable(): string | null {
  try {
    execFileSync(
      'bash',
      [path.resolve(__dirname, '../../scripts/ensure-command.sh'), 'iptables', 'iptables'],
      {
        stdio: 'pipe',
        timeout: 300_000,
      },
    );
    execFileSync('iptables', ['-w', '-L', 'INPUT', '-n'], { stdio: 'pipe' });
    return null;
  } catch (err) {
    const text = (err as Error).message.split('\n')[0];
    return `iptables cannot filter loopback traffic here (${text})`;
  }
}

/**
 * Cuts `node` off from `others` on the Erlang distribution: drops on loopback every packet to or from its
 * distribution port (the others' connections to it, and the CLI's) and every packet of its own outgoing
 * connections (which come from its own address, `distIp`) to the others' distribution ports. Its amqp
 * port stays open: what clients see is what the node does once it finds itself in the minority.
 */
export async function partition(node: ClusterNode, others: readonly ClusterNode[]): Promise<void> {
  await healPartition();
  await iptables('-N', CHAIN);
  await iptables('-I', 'INPUT', '-i', 'lo', '-j', CHAIN);
  const theirs = others.map((o) => String(o.distPort)).join(',');
  const p = ['-p', 'tcp'];
  await iptables('-A', CHAIN, ...p, '--dport', String(node.distPort), '-j', 'DROP');
  await iptables('-A', CHAIN, ...p, '--sport', String(node.distPort), '-j', 'DROP');
  await iptables('-A', CHAIN, '-s', node.distIp, ...p, '-m', 'multiport', '--dports', theirs, '-j', 'DROP');
  await iptables('-A', CHAIN, '-d', node.distIp, ...p, '-m', 'multiport', '--sports', theirs, '-j', 'DROP');
}

/** Removes the partition's rules (and a crashed run's); nothing when there are none or no iptables. */
export async function healPartition(): Promise<void> {
  await iptables('-D', 'INPUT', '-i', 'lo', '-j', CHAIN).catch(() => undefined);
  await iptables('-F', CHAIN).catch(() => undefined);
  await iptables('-X', CHAIN).catch(() => undefined);
}
