import { randomBytes } from 'node:crypto';
import { createSecretBox } from '../../../src/accounts/secret-box';
import { withTransaction } from '../../../src/db/pool';
import { insertAccount } from '../../../src/store/accounts';
import { claimDue, type ClaimResult } from '../../../src/store/claim-due';
import { recordInteractions } from '../../../src/store/follower-store';
import type { NewMessage } from '../../../src/store/message-store';
import { recordNoticeAnswers } from '../../../src/store/notice-acceptances';
import {
  aNewMessage,
  aNoticeMessage,
  anAppId,
  anOpenid,
  aStoredAccount,
  aTemplateMessage,
} from '../../helpers/builders';
import { createTestDb, type TestDb } from '../../helpers/db';
import { seedMessages } from '../../helpers/seed';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 8 });
});
afterAll(() => db.drop());

const box = createSecretBox(randomBytes(32));
const TPL = 'NOTICE-TPL-RACE';
const TRIALS = 8;

/**
 * A follower of a fresh account (frequency cap 2) who wrote in (a window of 3 sends) and accepted the
 * notice template twice: the slice below asks more of each counter than it holds.
 */
async function aFollowerWithLimits() {
  const appId = anAppId();
  const openid = anOpenid();
  await insertAccount(db.pool, { ...aStoredAccount(box, { appId }), frequencyCapPerDay: 2 });
  await withTransaction(db.pool, async (client) => {
    await recordInteractions(client, [
      {
        appId,
        openid,
        kind: 'message',
        detail: 'hi',
        at: new Date(),
        rule: { count: 3, windowMs: 3_600_000 },
      },
    ]);
    for (let i = 0; i < 2; i++)
      await recordNoticeAnswers(client, [{ appId, openid, templateId: TPL, accept: true }]);
  });
  const due = (fields: Partial<NewMessage>) => aNewMessage({ appId, openid, dueAt: new Date(), ...fields });
  const messages = [
    ...Array.from({ length: 5 }, () => due({})),
    ...Array.from({ length: 4 }, () => due({ channel: 'notice', payload: aNoticeMessage(TPL) })),
    ...Array.from({ length: 4 }, () =>
      due({ channel: 'template', payload: aTemplateMessage(), frequencyCapped: true }),
    ),
  ];
  return { appId, openid, ids: await seedMessages(db.pool, messages, { status: 'queued' }) };
}

const shuffled = <T>(xs: readonly T[]): T[] =>
  xs
    .map((x) => [Math.random(), x] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, x]) => x);

/** The ids a claim took out of the open rows: claimed, skipped or cancelled. */
const finishedBy = (c: ClaimResult) => [
  ...c.claimed.map((m) => m.id),
  ...c.skipped.map((s) => s.id),
  ...c.cancelled,
];

describe('concurrent claims over the same ids', () => {
  it(`never both claim a row, and spend each counter once, in each of ${TRIALS} trials`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      const f = await aFollowerWithLimits();

      const claims = await Promise.all(
        Array.from({ length: 3 }, () => claimDue(db.pool, shuffled(f.ids), 20, [])),
      );

      const claimed = claims.flatMap((c) => c.claimed.map((m) => m.id));
      expect(new Set(claimed).size).toBe(claimed.length);
      // Each row is taken by one claim only; the two moved to the next day stay open (a later claim finds
      // them not due yet), and every id is decided by some claim.
      const finished = claims.flatMap(finishedBy);
      expect(new Set(finished).size).toBe(finished.length);
      const moved = new Set(claims.flatMap((c) => c.early.map((e) => e.id)));
      expect([...finished, ...moved].sort()).toEqual([...f.ids].sort());
      // 3 in the window, 2 notices (2 acceptances), 2 capped templates (cap 2).
      expect(claimed).toHaveLength(7);
      const { rows } = await db.pool.query<{
        window_remaining: number;
        capped_sent: number;
        remaining: number;
      }>(
        `SELECT f.window_remaining, f.capped_sent, n.remaining FROM followers f
         JOIN notice_acceptances n USING (app_id, openid) WHERE f.app_id = $1 AND f.openid = $2`,
        [f.appId, f.openid],
      );
      expect(rows).toEqual([{ window_remaining: 0, capped_sent: 2, remaining: 0 }]);
      const statuses = await db.pool.query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM scheduled_messages WHERE id = ANY($1::uuid[])
         GROUP BY status ORDER BY status`,
        [f.ids],
      );
      expect(statuses.rows).toEqual([
        { status: 'queued', n: 2 },
        { status: 'sending', n: 7 },
        { status: 'skipped', n: 4 },
      ]);
    }
  });
});
