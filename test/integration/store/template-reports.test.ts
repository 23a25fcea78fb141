import { withTransaction } from '../../../src/db/pool';
import { findMessage } from '../../../src/store/message-store';
import { recordOutcomes } from '../../../src/store/record-outcomes';
import { recordTemplateReport } from '../../../src/store/template-reports';
import { aNewMessage, anAppId, anOpenid, aSentOutcome, aTemplateMessage } from '../../helpers/builders';
import { createTestDb, type TestDb } from '../../helpers/db';
import { seedMessages } from '../../helpers/seed';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb({ poolSize: 2 });
});
afterAll(() => db.drop());

/** A template message of a fresh account and follower, claimed and then sent with WeChat's `msgid`. */
async function aSentTemplate(msgid: string) {
  const appId = anAppId();
  const openid = anOpenid();
  const [id] = await seedMessages(
    db.pool,
    [aNewMessage({ appId, openid, channel: 'template', payload: aTemplateMessage() })],
    { status: 'sending', attempts: 1 },
  );
  await recordOutcomes(db.pool, [aSentOutcome(id, msgid)]);
  return { id, appId, openid };
}

const report = (r: Parameters<typeof recordTemplateReport>[1]) =>
  withTransaction(db.pool, (c) => recordTemplateReport(c, r));

describe('template delivery reports', () => {
  it('land on the sent message whose msgid they name, and a repeat rewrites the same value', async () => {
    const m = await aSentTemplate('200000101');
    const r = { appId: m.appId, openid: m.openid, msgid: '200000101', report: 'failed_freq_limit' } as const;

    expect([await report(r), await report(r)]).toEqual([true, true]);
    expect(await findMessage(db.pool, m.id)).toMatchObject({
      status: 'sent',
      deliveryReport: 'failed_freq_limit',
    });
  });

  it('change nothing for another account, another follower or an unknown msgid', async () => {
    const m = await aSentTemplate('200000102');
    const r = { appId: m.appId, openid: m.openid, msgid: '200000102', report: 'delivered' } as const;

    expect([
      await report({ ...r, appId: anAppId() }),
      await report({ ...r, openid: anOpenid() }),
      await report({ ...r, msgid: '200000999' }),
    ]).toEqual([false, false, false]);
    expect((await findMessage(db.pool, m.id))?.deliveryReport).toBeNull();
  });

  it('refuse a report the column does not know (the CHECK lists DELIVERY_REPORTS)', async () => {
    const m = await aSentTemplate('200000103');
    await expect(
      report({ appId: m.appId, openid: m.openid, msgid: '200000103', report: 'lost' as never }),
    ).rejects.toThrow(/delivery_report_check/);
  });
});
