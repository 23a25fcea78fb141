import type { CpuPerMessage } from './unit-cpu';
import type { UnitCostsResult } from './unit-costs';

/** Table 9: one row per run, the numbers the capacity plan uses (µs and bytes per unit). */
export function renderUnitCostsTable(name: string, results: readonly UnitCostsResult[]): string {
  const n = (v: number) => (Number.isNaN(v) ? '–' : Math.round(v).toLocaleString('en-US'));
  const sum = (r: Record<string, number>, pick: (name: string) => boolean) =>
    Object.entries(r).reduce((t, [k, v]) => t + (pick(k) ? v : 0), 0);
  const cpu = (c: CpuPerMessage) =>
    `${n(c.api)} / ${n(c.worker)} / ${n(c.postgresBackends)} / ${n(c.rabbitmq)}`;
  const head = [
    'run',
    'CPU µs/msg schedule: api / worker / pg / broker',
    'wait',
    'due → sent',
    'WAL B/msg schedule + due',
    'pg B/pending msg (of it indexes)',
    'broker B/pending msg: queues / node RSS / disk (msgs per wake-up)',
    'the same, one msg per wake-up',
    'pg B/follower',
  ];
  const broker = (p: UnitCostsResult['pending']) =>
    `${n(p.queueMemory)} / ${n(p.rss)} / ${n(p.disk)} (${n(p.messages / p.wakeUps)})`;
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const rows = results.map((r, run) => {
    const isIndex = (k: string) => k.startsWith('index:');
    return line([
      String(run + 1),
      cpu(r.lifecycle.schedule),
      cpu(r.lifecycle.wait),
      cpu(r.lifecycle.due),
      `${n(r.lifecycle.walSchedule)} + ${n(r.lifecycle.walDue)}`,
      `${n(sum(r.pending.bytes, () => true))} (${n(sum(r.pending.bytes, isIndex))})`,
      broker(r.pending),
      r.pendingAlone ? broker(r.pendingAlone) : '–',
      n(sum(r.followers.bytes, () => true)),
    ]);
  });
  return [
    `### 9. Costs per unit (${name}; details per relation in docs/bench-runs.json)`,
    [line(head), line(head.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows].join('\n'),
  ].join('\n\n');
}
