import { call } from './http';

/** The lines of a process's /metrics (its ops listener's base URL). */
async function metricLines(opsUrl: string): Promise<string[]> {
  return (await call(`${opsUrl}/metrics`)).text.split('\n');
}

/** The value of one series (name and labels as printed, e.g. `x{a="b"}`), or undefined when absent. */
export async function metricValue(opsUrl: string, series: string): Promise<number | undefined> {
  const line = (await metricLines(opsUrl)).find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The sum of the series of metric `name` carrying label `label="value"` (0 when there is none). */
export async function metricSum(opsUrl: string, name: string, label: string, value: string): Promise<number> {
  return (await metricLines(opsUrl))
    .filter((l) => l.startsWith(`${name}{`) && l.includes(`${label}="${value}"`))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}
