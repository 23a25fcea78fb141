import type pg from 'pg';

const textsByName = new Map<string, string>();

/**
 * A named statement: each connection parses it once, and Postgres may then keep one generic plan for it
 * (partitions pruned when it runs, from the parameters) instead of planning it on every call. For the hot
 * path's statements over the partitioned message table, where planning an unnamed statement cost as much
 * as running it: the claim's read of 100 messages took 3.3–3.8 ms unnamed and 1.9–2.3 ms named, with 6 and
 * with 37 partitions (docs/BENCHMARKS.md). A name belongs to one text in the process (checked here: pg
 * would refuse a second text under a name a connection has prepared).
 */
export function preparedStatement(name: string, text: string): (values: unknown[]) => pg.QueryConfig {
  const known = textsByName.get(name);
  if (known !== undefined && known !== text) throw new Error(`two statements are named ${name}`);
  textsByName.set(name, text);
  return (values) => ({ name, text, values });
}
