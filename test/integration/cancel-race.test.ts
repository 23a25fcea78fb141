import { randomUUID } from 'node:crypto';
import { cancelByTarget, cancelMessages } from '../../src/scheduling/cancel';
import { createCancelBatcher } from '../../src/scheduling/cancel-batcher';
import type { Publisher } from '../../src/broker/publisher';
import { createMetrics } from '../../src/metrics';
import { rescheduleMessage } from '../../src/scheduling/reschedule';
import type { ScheduleDeps } from '../../src/scheduling/schedule-messages';
import { silentLogger } from '../helpers/logger';
import { claimDue } from '../../src/store/claim-due';
import type { NewMessage } from '../../src/store/message-store';
import { changeSequenceStatus, createSequence } from '../../src/sequences/manage-sequences';
import { createTestDb, type TestDb } from '../helpers/db';
import { aNewMessage, aTemplateMessage, aTextMessage } from '../helpers/builders';
import { seedMessages } from '../helpers/seed';
import type { Actor } from '../../src/store/audit-log';

const TEST_ACTOR: Actor = { actor: { kind: 'admin_token' }, source: 'test', requestId: null };

/**
 * A cancellation's answer (`matched`, `cancelledSteps`) must be true even while a worker is claiming the
 * same messages: what the claim took is sent, what the answer counts is not. Each trial races one claim
 * against one cancellation, the cancellation starting a random 0–3 ms after the claim.
 */
let db: TestDb;
const APP = 'wxrace0000000001';
const OTHER_APP = 'wxrace0000000002';
const PER_TRIAL = 10;
const TRIALS = 150;

beforeAll(async () => {
  db = await createTestDb({ poolSize: 6 });
});
afterAll(async () => db.drop());

const dueNow = (fields: Partial<NewMessage>): NewMessage =>
  aNewMessage({
    appId: APP,
    channel: 'template',
    payload: aTemplateMessage(),
    dueAt: new Date(Date.now() - 1000),
    ...fields,
  });

const queued = (messages: NewMessage[]): Promise<string[]> =>
  seedMessages(db.pool, messages, { status: 'queued' });

/** What a reschedule needs; its wake-up is published nowhere (no worker runs here). */
let deps: ScheduleDeps | undefined;
const scheduleDeps = (): ScheduleDeps =>
  (deps ??= {
    pool: db.pool,
    publisher: { publishWakeUp: () => Promise.resolve() } as unknown as Publisher,
    logger: silentLogger,
    metrics: createMetrics({ pool: db.pool, transportMode: 'levels' }),
  });

const jitter = () => new Promise((r) => setTimeout(r, Math.random() * 3));

describe('a counted cancellation racing the claim', () => {
  it(`by cancel key: claimed + matched = the messages, in each of ${TRIALS} trials`, async () => {
    const wrong: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const cancelKey = `k-${trial}`;
      const ids = await queued(Array.from({ length: PER_TRIAL }, () => dueNow({ cancelKey })));
      const [claim, cancel] = await Promise.all([
        claimDue(db.pool, ids, 20, []),
        jitter().then(() =>
          cancelByTarget(db.pool, { appId: APP, target: { cancelKey }, reason: 'race', actor: 'test' }),
        ),
      ]);
      if (claim.claimed.length + cancel.matched !== PER_TRIAL) {
        wrong.push(`${cancelKey}: claimed ${claim.claimed.length}, matched ${cancel.matched}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it(`by sequence pause: claimed + cancelledSteps = the steps, in each of ${TRIALS / 3} trials`, async () => {
    const wrong: string[] = [];
    for (let trial = 0; trial < TRIALS / 3; trial++) {
      const sequence = await createSequence(
        db.pool,
        {
          appId: APP,
          name: `race ${trial}`,
          trigger: { type: 'subscribe' },
          steps: [{ offsetMs: 0, message: aTextMessage('hi'), fallback: null }],
          wait: null,
          goal: null,
          paths: {},
          oncePerFollower: false,
          exits: [],
        },
        'active',
        TEST_ACTOR,
      );
      const ids = await queued(
        Array.from({ length: PER_TRIAL }, (_, index) =>
          dueNow({ step: { sequenceId: sequence.id, enrollmentId: randomUUID(), index } }),
        ),
      );
      const [claim, pause] = await Promise.all([
        claimDue(db.pool, ids, 20, []),
        jitter().then(() => changeSequenceStatus(db.pool, sequence.id, 'pause', TEST_ACTOR)),
      ]);
      if (claim.claimed.length + pause.cancelledSteps !== PER_TRIAL) {
        wrong.push(`trial ${trial}: claimed ${claim.claimed.length}, cancelledSteps ${pause.cancelledSteps}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it(`by ids over two accounts: no id answered cancelled is claimed, and claimed + cancelled = the messages, in each of ${TRIALS} trials`, async () => {
    const wrong: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const ids = await queued(
        Array.from({ length: PER_TRIAL }, (_, i) => dueNow({ appId: i % 2 === 0 ? APP : OTHER_APP })),
      );
      const [claim, results] = await Promise.all([
        claimDue(db.pool, ids, 20, []),
        jitter().then(() => cancelMessages(db.pool, { ids, reason: 'race', actor: 'test' })),
      ]);
      const claimed = new Set(claim.claimed.map((m) => m.id));
      const cancelled = results.filter((r) => r.outcome === 'cancelled').map((r) => r.id);
      const sentAnyway = cancelled.filter((id) => claimed.has(id));
      if (sentAnyway.length > 0 || claimed.size + cancelled.length !== PER_TRIAL) {
        wrong.push(
          `trial ${trial}: claimed ${claimed.size}, cancelled ${cancelled.length}, both ${sentAnyway.join(', ')}`,
        );
      }
      const answeredClaimed = results.filter((r) => claimed.has(r.id));
      if (answeredClaimed.some((r) => r.outcome !== 'not_cancellable' || r.status !== 'sending')) {
        wrong.push(`trial ${trial}: a claimed id answered ${JSON.stringify(answeredClaimed)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it(`by id, one DELETE each, joined by the batcher: no message answered cancelled is claimed, in each of ${TRIALS} trials`, async () => {
    const cancelOne = createCancelBatcher(db.pool);
    const wrong: string[] = [];
    for (let trial = 0; trial < TRIALS; trial++) {
      const ids = await queued(
        Array.from({ length: PER_TRIAL }, (_, i) => dueNow({ appId: i % 2 === 0 ? APP : OTHER_APP })),
      );
      const [claim, answers] = await Promise.all([
        claimDue(db.pool, ids, 20, []),
        jitter().then(() =>
          Promise.allSettled(ids.map((id) => cancelOne({ id, reason: 'race', actor: 'test' }))),
        ),
      ]);
      const claimed = new Set(claim.claimed.map((m) => m.id));
      const cancelled = ids.filter((_, i) => answers[i].status === 'fulfilled');
      const refused = answers.flatMap((a) => (a.status === 'rejected' ? [String(a.reason)] : []));
      if (cancelled.some((id) => claimed.has(id)) || claimed.size + cancelled.length !== PER_TRIAL) {
        wrong.push(`trial ${trial}: claimed ${claimed.size}, cancelled ${cancelled.length}`);
      }
      if (refused.some((r) => !r.includes('can no longer be cancelled')))
        wrong.push(`trial ${trial}: ${refused[0]}`);
    }
    expect(wrong).toEqual([]);
  });

  it(`by id through every route at once (a DELETE each, a POST by ids, a reschedule): each message is claimed or cancelled once, with one ledger row, in each of ${TRIALS / 3} trials`, async () => {
    const cancelOne = createCancelBatcher(db.pool);
    const wrong: string[] = [];
    for (let trial = 0; trial < TRIALS / 3; trial++) {
      const ids = await queued(
        Array.from({ length: PER_TRIAL }, (_, i) => dueNow({ appId: i % 2 === 0 ? APP : OTHER_APP })),
      );
      const replacement = dueNow({ dueAt: new Date(Date.now() + 3_600_000) });
      const [claim, deletes, posted, moved] = await Promise.all([
        claimDue(db.pool, ids, 20, []),
        jitter().then(() =>
          Promise.allSettled(ids.map((id) => cancelOne({ id, reason: 'race', actor: 'test' }))),
        ),
        jitter().then(() => cancelMessages(db.pool, { ids, reason: 'race', actor: 'test' })),
        jitter().then(() =>
          rescheduleMessage(scheduleDeps(), ids[0], replacement, 'test').then(
            () => true,
            () => false,
          ),
        ),
      ]);
      const claimed = new Set(claim.claimed.map((m) => m.id));
      const byPost = posted.filter((r) => r.outcome === 'cancelled').map((r) => r.id);
      const { rows } = await db.pool.query<{ target: string; n: number }>(
        `SELECT target, count(*)::int AS n FROM cancellations WHERE scope = 'message' AND target = ANY($1) GROUP BY target`,
        [ids],
      );
      const ledger = new Map(rows.map((r) => [r.target, r.n]));
      for (const [i, id] of ids.entries()) {
        const answeredCancelled = deletes[i].status === 'fulfilled';
        const entries = ledger.get(id) ?? 0;
        if (claimed.has(id) === answeredCancelled || entries !== (claimed.has(id) ? 0 : 1)) {
          wrong.push(
            `trial ${trial} ${id}: claimed ${claimed.has(id)}, DELETE ok ${answeredCancelled}, ledger rows ${entries}`,
          );
        }
      }
      if (byPost.some((id) => claimed.has(id))) wrong.push(`trial ${trial}: POST cancelled a claimed id`);
      if (moved && claimed.has(ids[0])) wrong.push(`trial ${trial}: moved a claimed message`);
    }
    expect(wrong).toEqual([]);
  });
});
