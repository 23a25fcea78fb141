import { createSecretBox } from '../../src/accounts/secret-box';
import { ticketContext } from '../../src/accounts/take-platform-event';
import type { Service } from '../../src/main/start-service';
import type { WirePush } from '../../src/simulator/push-format';
import { insertAccount } from '../../src/store/accounts';
import { aNewMessage, anAppId, aStoredAccount } from '../helpers/builders';
import { ACCOUNTS_ENCRYPTION_KEY, createHarness, type Harness } from '../helpers/harness';
import { aComponentPush, anAuthorizationPush, aPlatform, aTicketPush, nowS } from '../helpers/platform';
import { seedMessages } from '../helpers/seed';

const PLATFORM = aPlatform();
const box = createSecretBox(Buffer.from(ACCOUNTS_ENCRYPTION_KEY, 'base64'));
let h: Harness;
let api: Service;

beforeAll(async () => {
  h = await createHarness({ ROLE: 'api', ...PLATFORM.env });
  api = await h.start();
});
afterAll(() => h.close());

const post = (push: WirePush, path = '/wechat/component') =>
  fetch(`${api.url}${path}?${push.query}`, {
    method: 'POST',
    headers: { 'content-type': push.contentType },
    body: push.body,
  });
const answer = async (res: Response) => `${res.status} ${await res.text()}`;
const errorCode = async (res: Response) =>
  `${res.status} ${((await res.json()) as { error: { code: string } }).error.code}`;

const storedTicket = async () =>
  (
    await h.db.pool.query<{ ticket_sealed: string; pushed_at: Date }>(
      'SELECT ticket_sealed, pushed_at FROM component_tickets WHERE component_app_id = $1',
      [PLATFORM.componentAppId],
    )
  ).rows[0];
const written = async () =>
  (
    await h.db.pool.query<Record<string, number>>(
      `SELECT (SELECT count(*)::int FROM component_tickets) AS tickets,
              (SELECT count(*)::int FROM platform_authorizations) AS authorizations,
              (SELECT count(*)::int FROM component_push_uses) AS uses,
              (SELECT count(*)::int FROM cancellations) AS cancellations,
              (SELECT count(*)::int FROM accounts WHERE NOT enabled) AS disabled`,
    )
  ).rows[0];
const aPlatformAccount = async () => {
  const stored = await insertAccount(h.db.pool, aStoredAccount(box, { appId: anAppId(), kind: 'platform' }));
  return stored!.appId;
};

describe('POST /wechat/component: the authorization-event URL', () => {
  it('keeps a component_verify_ticket sealed with its push time, answers `success`, and keeps the latest', async () => {
    const ticket = 'ticket@@@first-ticket-value';
    const pushedS = nowS(-60);
    const res = await post(aComponentPush(PLATFORM, aTicketPush(PLATFORM.componentAppId, ticket, pushedS)));

    expect(await answer(res)).toBe('200 success');
    const row = await storedTicket();
    expect(row.ticket_sealed).not.toContain('first-ticket-value');
    expect(box.open(row.ticket_sealed, ticketContext(PLATFORM.componentAppId))).toBe(ticket);
    expect(row.pushed_at).toEqual(new Date(pushedS * 1000));

    await post(aComponentPush(PLATFORM, aTicketPush(PLATFORM.componentAppId, 'ticket@@@newer', nowS())));
    // Pushed before the newer one, arriving after it: answered, not kept.
    const late = await post(
      aComponentPush(PLATFORM, aTicketPush(PLATFORM.componentAppId, 'ticket@@@older', nowS(-120))),
    );
    expect(await answer(late)).toBe('200 success');
    expect(box.open((await storedTicket()).ticket_sealed, ticketContext(PLATFORM.componentAppId))).toBe(
      'ticket@@@newer',
    );
  });

  it('records an authorized event with its code sealed, its expiry and pre-auth code', async () => {
    const appId = anAppId();
    const fields = anAuthorizationPush(PLATFORM.componentAppId, 'authorized', appId);
    const code = fields.find(([n]) => n === 'AuthorizationCode')![1];

    expect(await answer(await post(aComponentPush(PLATFORM, fields)))).toBe('200 success');
    const { rows } = await h.db.pool.query(
      `SELECT state, authorization_code_sealed, extract(epoch FROM authorization_code_expires_at)::int AS expires,
              pre_auth_code FROM platform_authorizations WHERE authorizer_app_id = $1`,
      [appId],
    );
    expect(rows).toEqual([
      {
        state: 'authorized',
        authorization_code_sealed: expect.not.stringContaining(code.split('@@@')[1]),
        expires: Number(fields.find(([n]) => n === 'AuthorizationCodeExpiredTime')![1]),
        pre_auth_code: fields.find(([n]) => n === 'PreAuthCode')![1],
      },
    ]);
  });

  it('on unauthorized, disables the platform account and cancels its open messages with one ledger row, once', async () => {
    const appId = await aPlatformAccount();
    const ids = await seedMessages(h.db.pool, [
      aNewMessage({ appId, dueAt: new Date(Date.now() + 3_600_000) }),
      aNewMessage({ appId, dueAt: new Date(Date.now() + 7_200_000) }),
    ]);

    const res = await post(
      aComponentPush(PLATFORM, anAuthorizationPush(PLATFORM.componentAppId, 'unauthorized', appId)),
    );

    expect(await answer(res)).toBe('200 success');
    const view = (await (await h.api(api, `/v1/accounts/${appId}`)).json()) as Record<string, unknown>;
    expect(view).toMatchObject({ enabled: false, status: 'unauthorized' });
    const ledger = await h.db.pool.query(
      'SELECT scope, target, reason, actor FROM cancellations WHERE app_id = $1',
      [appId],
    );
    expect(ledger.rows).toEqual([
      { scope: 'account', target: appId, reason: 'account_unauthorized', actor: 'wechat:unauthorized' },
    ]);
    for (const id of ids) {
      expect(await (await h.api(api, `/v1/messages/${id}`)).json()).toMatchObject({ status: 'cancelled' });
    }
    // WeChat telling it again (another push, same news): recorded, no second ledger row.
    const again = await post(
      aComponentPush(PLATFORM, anAuthorizationPush(PLATFORM.componentAppId, 'unauthorized', appId)),
    );
    expect(await answer(again)).toBe('200 success');
    expect((await h.db.pool.query('SELECT 1 FROM cancellations WHERE app_id = $1', [appId])).rowCount).toBe(
      1,
    );
  });

  it('leaves an own account with the same app id alone on unauthorized', async () => {
    const { appId } = (await insertAccount(h.db.pool, aStoredAccount(box, { appId: anAppId() })))!;
    await api.accounts.refresh();
    const res = await post(
      aComponentPush(PLATFORM, anAuthorizationPush(PLATFORM.componentAppId, 'unauthorized', appId)),
    );
    expect(await answer(res)).toBe('200 success');
    expect(await (await h.api(api, `/v1/accounts/${appId}`)).json()).toMatchObject({
      enabled: true,
      status: 'active',
    });
    expect((await h.db.pool.query('SELECT 1 FROM cancellations WHERE app_id = $1', [appId])).rowCount).toBe(
      0,
    );
  });

  describe('refuses, writing nothing', () => {
    const appId = anAppId();
    const unauthorize = () => anAuthorizationPush(PLATFORM.componentAppId, 'unauthorized', appId);
    beforeAll(async () => {
      await insertAccount(h.db.pool, aStoredAccount(box, { appId, kind: 'platform' }));
    });

    const cases: [string, () => WirePush, string][] = [
      [
        'a bad msg_signature',
        () => aComponentPush(PLATFORM, unauthorize(), { token: 'notthetoken' }),
        '401 unauthorized',
      ],
      [
        'a stale timestamp',
        () => aComponentPush(PLATFORM, unauthorize(), { timestampS: nowS(-3600) }),
        '401 unauthorized',
      ],
      [
        'a push encrypted for another component',
        () =>
          aComponentPush(PLATFORM, anAuthorizationPush('wxanothercomponent1', 'unauthorized', appId), {
            sealFor: 'wxanothercomponent1',
          }),
        '400 push_wrong_app',
      ],
      [
        'a push naming another component inside',
        () => aComponentPush(PLATFORM, anAuthorizationPush('wxanothercomponent1', 'unauthorized', appId)),
        '400 push_wrong_app',
      ],
      [
        'a ticket push without its ticket',
        () => aComponentPush(PLATFORM, aTicketPush(PLATFORM.componentAppId, '')),
        '400 push_malformed',
      ],
      [
        'a push in plaintext',
        () => {
          const push = aComponentPush(PLATFORM, unauthorize());
          const query = new URLSearchParams(push.query);
          query.delete('encrypt_type');
          return { ...push, query: query.toString() };
        },
        '401 unauthorized',
      ],
    ];
    it.each(cases)('%s', async (_, push, expected) => {
      const before = await written();
      expect(await errorCode(await post(push()))).toBe(expected);
      expect(await written()).toEqual(before);
    });

    it('the same push sent again (a replay): 409 push_replayed', async () => {
      const push = aComponentPush(PLATFORM, aTicketPush(PLATFORM.componentAppId, 'ticket@@@replayed'));
      expect(await answer(await post(push))).toBe('200 success');
      const before = await written();
      expect(await errorCode(await post(push))).toBe('409 push_replayed');
      expect(await written()).toEqual(before);
    });
  });
});

describe('POST /wechat/component without the platform configured', () => {
  it('is refused as an unsigned push, like any app id that is no account', async () => {
    const unset = Object.fromEntries(Object.keys(PLATFORM.env).map((name) => [name, '']));
    const bare = await h.start({ HTTP_PORT: '0', ...unset });
    const res = await fetch(
      `${bare.url}/wechat/component?${aComponentPush(PLATFORM, aTicketPush(PLATFORM.componentAppId, 't')).query}`,
      { method: 'POST', body: '<xml/>' },
    );
    expect(res.status).toBe(401);
  });
});
