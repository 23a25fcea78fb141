import type { Service } from '../../src/main/start-service';
import { anAccountBody } from '../helpers/builders';
import { APP_ID, createHarness, type Harness } from '../helpers/harness';

let h: Harness;
let api: Service;

beforeAll(async () => {
  h = await createHarness({ ROLE: 'api' }, { simulatorAccounts: [{ appId: APP_ID, secret: 'test-secret' }] });
  api = await h.start();
});
afterAll(() => h.close());

const send = (method: string, path: string, body?: unknown) =>
  h.api(api, path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
const storedZone = async (appId: string) =>
  (await h.db.pool.query<{ time_zone: string }>('SELECT time_zone FROM accounts WHERE app_id = $1', [appId]))
    .rows[0]?.time_zone;
const accountCount = async () =>
  (await h.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts')).rows[0].n;

describe('an account’s timeZone', () => {
  it('defaults to Asia/Shanghai when the create body leaves it out', async () => {
    const body = anAccountBody();
    const res = await send('POST', '/v1/accounts', body);
    expect(res.status).toBe(201);
    expect(((await res.json()) as { timeZone: string }).timeZone).toBe('Asia/Shanghai');
    expect(await storedZone(body.appId)).toBe('Asia/Shanghai');
  });

  it('takes an IANA zone on create and on PATCH, and answers it in the view', async () => {
    const body = anAccountBody({ timeZone: 'Europe/Berlin' });
    expect((await send('POST', '/v1/accounts', body)).status).toBe(201);
    expect(await storedZone(body.appId)).toBe('Europe/Berlin');

    const res = await send('PATCH', `/v1/accounts/${body.appId}`, { timeZone: 'America/New_York' });

    expect(res.status).toBe(200);
    expect(((await res.json()) as { timeZone: string }).timeZone).toBe('America/New_York');
    expect(await storedZone(body.appId)).toBe('America/New_York');
    const read = (await (await send('GET', `/v1/accounts/${body.appId}`)).json()) as { timeZone: string };
    expect(read.timeZone).toBe('America/New_York');
  });

  it('keeps a zone as written, also where the time zone database spells it otherwise (Asia/Kolkata)', async () => {
    const body = anAccountBody({ timeZone: 'Asia/Kolkata' });
    expect((await send('POST', '/v1/accounts', body)).status).toBe(201);
    expect(await storedZone(body.appId)).toBe('Asia/Kolkata');
  });

  it.each(['Mars/Olympus', '+08:00', 'GMT+8', '', 'Asia/Shanghai; DROP TABLE accounts'])(
    'refuses %p with 400 naming timeZone, on create and on PATCH, and writes nothing',
    async (zone) => {
      const before = await accountCount();
      const created = await send('POST', '/v1/accounts', anAccountBody({ timeZone: zone }));
      const createError = (await created.json()) as {
        error: { details: { path: string; message: string }[] };
      };
      expect(created.status).toBe(400);
      expect(createError.error.details).toEqual([
        {
          path: 'timeZone',
          message: 'timeZone must be an IANA time zone name, e.g. Asia/Shanghai',
          rule: { kind: 'time_zone' },
        },
      ]);
      expect(await accountCount()).toBe(before);

      const existing = anAccountBody({ timeZone: 'Asia/Tokyo' });
      expect((await send('POST', '/v1/accounts', existing)).status).toBe(201);
      const patched = await send('PATCH', `/v1/accounts/${existing.appId}`, {
        timeZone: zone,
        name: 'not written either',
      });
      expect(patched.status).toBe(400);
      expect(await storedZone(existing.appId)).toBe('Asia/Tokyo');
      const after = (await (await send('GET', `/v1/accounts/${existing.appId}`)).json()) as {
        name: string | null;
      };
      expect(after.name).toBeNull();
    },
  );
});
