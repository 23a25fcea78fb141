import type { Pool, PoolClient } from '../db/pool';
import { LEDGER_COVERS } from './ledger';
import { isOpenSql } from './message-status';
import type {
  ExitCondition,
  Goal,
  SequenceQuietHours,
  SequenceStatus,
  StepView,
  Trigger,
  Wait,
} from '../contract';

/**
 * A sequence as the store writes it: sequences/sequence-schema parses and checks the definition (each
 * step's message and fallback against WeChat's schemas) before it gets here.
 */
export interface StoredDefinition {
  readonly appId: string;
  readonly name: string;
  readonly trigger: Trigger;
  readonly steps: readonly StepView[];
  /** The wait that ends the main path (`steps`), or null. */
  readonly wait: Wait | null;
  /** The named paths its waits lead to. */
  readonly paths: Readonly<Record<string, StoredPath>>;
  /** Its conversion goal, or null. */
  readonly goal: Goal | null;
  readonly oncePerFollower: boolean;
  readonly exits: readonly ExitCondition[];
  /** Its own quiet hours, `false` for none; undefined: the account's default. */
  readonly quietHours?: SequenceQuietHours;
}
/** A named path: its steps and the wait that may end it. */
export interface StoredPath {
  readonly steps: readonly StepView[];
  readonly wait?: Wait;
}

/** The definition a sequence's current version holds: what a copy is made of, what a start checks again. */
export const definitionOf = (s: Sequence): StoredDefinition => ({
  appId: s.appId,
  name: s.name,
  trigger: s.trigger,
  steps: s.steps,
  wait: s.wait,
  paths: s.paths,
  goal: s.goal,
  oncePerFollower: s.oncePerFollower,
  exits: s.exits,
  ...(s.quietHours === null ? {} : { quietHours: s.quietHours }),
});

/** The status whose sequences enroll followers. */
const ACTIVE: SequenceStatus = 'active';

export interface Sequence {
  readonly id: string;
  readonly appId: string;
  readonly name: string;
  readonly status: SequenceStatus;
  readonly version: number;
  readonly oncePerFollower: boolean;
  readonly trigger: Trigger;
  readonly steps: readonly StepView[];
  /** The wait that ends the main path, or null: the current version's, as `paths`. */
  readonly wait: Wait | null;
  readonly paths: Readonly<Record<string, StoredPath>>;
  /** The current version's conversion goal, or null. */
  readonly goal: Goal | null;
  /** The current version's exit conditions. */
  readonly exits: readonly ExitCondition[];
  /** Its own quiet hours, `false` for none, null: the account's default (the latest save's, for every enrollment). */
  readonly quietHours: SequenceQuietHours | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

interface SequenceRow {
  id: string;
  app_id: string;
  name: string;
  status: SequenceStatus;
  current_version: number;
  once_per_follower: boolean;
  trigger: Trigger;
  steps: StepView[];
  wait: Wait | null;
  paths: Record<string, StoredPath>;
  goal: Goal | null;
  exits: ExitCondition[];
  quiet_hours: SequenceQuietHours | null;
  created_at: Date;
  updated_at: Date;
}

const SELECT = `SELECT s.id, s.app_id, s.name, s.status, s.current_version, s.once_per_follower, v.trigger, v.steps,
  v.wait, v.paths, v.goal, v.exits, s.quiet_hours, s.created_at, s.updated_at
  FROM sequences s JOIN sequence_versions v ON v.sequence_id = s.id AND v.version = s.current_version`;

/** SELECT with each sequence's creation time in µs since the epoch, exact (a Date keeps only ms). */
const SELECT_WITH_POSITION = SELECT.replace(
  's.created_at, s.updated_at',
  `s.created_at, s.updated_at,
  ((extract(epoch FROM s.created_at) * 1000000)::numeric(20, 0))::text AS created_us`,
);

function toSequence(r: SequenceRow): Sequence {
  return {
    id: r.id,
    appId: r.app_id,
    name: r.name,
    status: r.status,
    version: r.current_version,
    oncePerFollower: r.once_per_follower,
    trigger: r.trigger,
    steps: r.steps,
    wait: r.wait,
    paths: r.paths,
    goal: r.goal,
    exits: r.exits,
    quietHours: r.quiet_hours,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The quiet hours column's value: JSON (`false` included), or SQL null for the account's default. */
const quietHoursParam = (d: StoredDefinition): string | null =>
  d.quietHours === undefined ? null : JSON.stringify(d.quietHours);

export async function insertSequence(
  db: PoolClient,
  d: StoredDefinition,
  status: SequenceStatus,
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO sequences (app_id, name, status, once_per_follower, quiet_hours) VALUES ($1, $2, $3, $4, $5::jsonb)
     RETURNING id`,
    [d.appId, d.name, status, d.oncePerFollower, quietHoursParam(d)],
  );
  const id = rows[0].id;
  await insertVersion(db, id, 1, d);
  return id;
}

/** Adds a version and makes it current; enrollments already running keep theirs. */
export async function addVersion(db: PoolClient, id: string, d: StoredDefinition): Promise<number> {
  const { rows } = await db.query<{ current_version: number }>(
    `UPDATE sequences SET current_version = current_version + 1, name = $2, once_per_follower = $3,
       quiet_hours = $4::jsonb, updated_at = now()
     WHERE id = $1 RETURNING current_version`,
    [id, d.name, d.oncePerFollower, quietHoursParam(d)],
  );
  const version = rows[0].current_version;
  await insertVersion(db, id, version, d);
  return version;
}

async function insertVersion(
  db: PoolClient,
  id: string,
  version: number,
  d: StoredDefinition,
): Promise<void> {
  await db.query(
    `INSERT INTO sequence_versions (sequence_id, version, trigger, steps, wait, paths, goal, exits)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      id,
      version,
      JSON.stringify(d.trigger),
      JSON.stringify(d.steps),
      d.wait === null ? null : JSON.stringify(d.wait),
      JSON.stringify(d.paths),
      d.goal === null ? null : JSON.stringify(d.goal),
      JSON.stringify(d.exits),
    ],
  );
}

/** A version's paths: what an enrollment of it follows when its waits resolve. */
export type JourneyVersion = Pick<Sequence, 'version' | 'trigger' | 'steps' | 'wait' | 'paths' | 'goal'> & {
  readonly sequenceId: string;
};

/** The versions asked for, by `<sequenceId>:<version>`. */
export async function findVersions(
  db: PoolClient,
  keys: readonly { sequenceId: string; version: number }[],
): Promise<Map<string, JourneyVersion>> {
  if (keys.length === 0) return new Map();
  const { rows } = await db.query<{
    sequence_id: string;
    version: number;
    trigger: Trigger;
    steps: StepView[];
    wait: Wait | null;
    paths: Record<string, StoredPath>;
    goal: Goal | null;
  }>(
    `SELECT v.sequence_id, v.version, v.trigger, v.steps, v.wait, v.paths, v.goal FROM sequence_versions v
     JOIN unnest($1::uuid[], $2::int[]) AS k(sequence_id, version)
       ON v.sequence_id = k.sequence_id AND v.version = k.version`,
    [keys.map((k) => k.sequenceId), keys.map((k) => k.version)],
  );
  return new Map(
    rows.map((r) => [
      versionKey(r.sequence_id, r.version),
      {
        sequenceId: r.sequence_id,
        version: r.version,
        trigger: r.trigger,
        steps: r.steps,
        wait: r.wait,
        paths: r.paths,
        goal: r.goal,
      },
    ]),
  );
}

/** The key `findVersions` answers by. */
export const versionKey = (sequenceId: string, version: number): string => `${sequenceId}:${version}`;

export async function findSequence(
  db: Pool | PoolClient,
  id: string,
  forUpdate = false,
): Promise<Sequence | null> {
  const { rows } = await db.query<SequenceRow>(
    `${SELECT} WHERE s.id = $1${forUpdate ? ' FOR UPDATE OF s' : ''}`,
    [id],
  );
  return rows[0] ? toSequence(rows[0]) : null;
}

/** Where a page of sequences ends: the last one's creation time (µs since the epoch, exact) and id. */
export interface SequencePosition {
  readonly createdUs: string;
  readonly id: string;
}

/**
 * A page of sequences, newest first (ties by id), of one account or of all: at most `limit`, after
 * `after` when given; `next` is where the page ended when more follow, else null.
 * -- Params: $1 app_id or null, $2 limit + 1, $3 after's creation µs or null, $4 after's id or null
 */
export async function listSequences(
  db: Pool,
  q: { appId: string | null; limit: number; after: SequencePosition | null },
): Promise<{ sequences: Sequence[]; next: SequencePosition | null }> {
  const { rows } = await db.query<SequenceRow & { created_us: string }>(
    `${SELECT_WITH_POSITION}
     WHERE ($1::text IS NULL OR s.app_id = $1)
       AND ($3::bigint IS NULL
            OR (s.created_at, s.id) < (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::uuid))
     ORDER BY s.created_at DESC, s.id DESC
     LIMIT $2`,
    [q.appId, q.limit + 1, q.after?.createdUs ?? null, q.after?.id ?? null],
  );
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    sequences: page.map(toSequence),
    next: rows.length > q.limit && last ? { createdUs: last.created_us, id: last.id } : null,
  };
}

export async function setStatus(db: PoolClient, id: string, status: SequenceStatus): Promise<void> {
  await db.query(`UPDATE sequences SET status = $2, updated_at = now() WHERE id = $1`, [id, status]);
}

/** Active sequences of an account, with their current version: the candidates a push may start. */
export async function listActive(db: Pool | PoolClient, appId: string): Promise<Sequence[]> {
  const { rows } = await db.query<SequenceRow>(`${SELECT} WHERE s.app_id = $1 AND s.status = '${ACTIVE}'`, [
    appId,
  ]);
  return rows.map(toSequence);
}

/** Open messages of a sequence (for the answer to pause / archive: what it cancels). */
export async function countOpenSteps(db: PoolClient, id: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM scheduled_messages m
     WHERE m.sequence_id = $1 AND ${isOpenSql('m.status')} AND NOT ${LEDGER_COVERS('m')}`,
    [id],
  );
  return rows[0].n;
}
