import { accountCreateSchema, accountPatchSchema, accountViewSchema } from '../../../src/contract';
import { resolveWindowPolicy, WINDOW_PRESETS } from '../../../src/wechat/window-policy';
import { anAccountBody, anEncodingAESKey } from '../../helpers/builders';

/** The paths of the problems `schema` finds in `body`, dot-joined. */
function problems(
  schema: { safeParse(v: unknown): { error?: { issues: { path: PropertyKey[] }[] } } },
  body: unknown,
) {
  return (schema.safeParse(body).error?.issues ?? []).map((i) => i.path.map(String).join('.'));
}

describe('the accounts contract', () => {
  it('fills a create body with its defaults: plaintext pushes, the official policy, 1000/s, no frequency cap, enabled, Asia/Shanghai, no quiet hours', () => {
    const body = anAccountBody();
    expect(accountCreateSchema.parse(body)).toEqual({
      ...body,
      name: null,
      encodingAESKey: null,
      previousEncodingAESKey: null,
      pushMode: 'plaintext',
      windowPolicy: 'official',
      sendRatePerSecond: 1000,
      atLeastOnce: false,
      frequencyCapPerDay: null,
      enabled: true,
      timeZone: 'Asia/Shanghai',
      quietHours: null,
    });
  });

  it('takes a time zone the time zone database knows by name, and refuses offsets and unknown names', () => {
    for (const zone of ['Asia/Shanghai', 'Europe/Berlin', 'UTC', 'America/Argentina/Buenos_Aires']) {
      expect(problems(accountCreateSchema, anAccountBody({ timeZone: zone }))).toEqual([]);
    }
    for (const zone of ['Mars/Olympus', '+08:00', 'UTC+8', '', ' Asia/Shanghai']) {
      expect(problems(accountCreateSchema, anAccountBody({ timeZone: zone }))).toEqual(['timeZone']);
      expect(problems(accountPatchSchema, { timeZone: zone })).toEqual(['timeZone']);
    }
  });

  it('refuses a create body naming each bad field: app id, secret, key, rate, unknown fields', () => {
    expect(problems(accountCreateSchema, anAccountBody({ appId: 'a b' }))).toEqual(['appId']);
    expect(problems(accountCreateSchema, { ...anAccountBody(), secret: '' })).toEqual(['secret']);
    expect(problems(accountCreateSchema, anAccountBody({ encodingAESKey: 'short' }))).toEqual([
      'encodingAESKey',
    ]);
    expect(problems(accountCreateSchema, anAccountBody({ sendRatePerSecond: 0 }))).toEqual([
      'sendRatePerSecond',
    ]);
    expect(problems(accountCreateSchema, { ...anAccountBody(), sekret: 'x' })).toEqual(['']);
  });

  it("refuses the webhook's route words as app ids, in any case: no push could reach such an account", () => {
    for (const appId of ['component', 'platform', 'Component', 'PLATFORM']) {
      expect(problems(accountCreateSchema, anAccountBody({ appId }))).toEqual(['appId']);
    }
    expect(problems(accountCreateSchema, anAccountBody({ appId: 'wxcomponent1' }))).toEqual([]);
  });

  it('refuses safe or compatible push mode without an EncodingAESKey, and takes it with one', () => {
    expect(problems(accountCreateSchema, anAccountBody({ pushMode: 'safe' }))).toEqual(['encodingAESKey']);
    expect(
      problems(accountCreateSchema, anAccountBody({ pushMode: 'safe', encodingAESKey: anEncodingAESKey() })),
    ).toEqual([]);
  });

  it('takes a window policy as a preset name or as custom rules, which resolve to their tables', () => {
    const custom = { ...WINDOW_PRESETS.official!, subscribe: { count: 1, windowMs: 30_000 } };
    expect(
      resolveWindowPolicy(
        accountCreateSchema.parse(anAccountBody({ windowPolicy: 'legacy-48h' })).windowPolicy,
      ),
    ).toBe(WINDOW_PRESETS['legacy-48h']);
    expect(accountCreateSchema.parse(anAccountBody({ windowPolicy: custom })).windowPolicy).toEqual(custom);
    expect(problems(accountCreateSchema, anAccountBody({ windowPolicy: 'lenient' as 'none' }))).toEqual([
      'windowPolicy',
    ]);
  });

  it('takes any subset in a PATCH, null clearing an optional field, but neither the app id nor a null secret', () => {
    expect(accountPatchSchema.parse({ token: null, enabled: false })).toEqual({
      token: null,
      enabled: false,
    });
    expect(accountPatchSchema.parse({})).toEqual({});
    expect(problems(accountPatchSchema, { appId: 'wxother' })).toEqual(['']);
    expect(problems(accountPatchSchema, { secret: null })).toEqual(['secret']);
  });

  it('has no field in the account view that could carry a secret', () => {
    const fields = Object.keys(accountViewSchema.shape);
    expect(fields).toEqual(
      expect.arrayContaining(['hasSecret', 'hasEncodingAESKey', 'hasPreviousEncodingAESKey']),
    );
    for (const secret of ['secret', 'token', 'encodingAESKey', 'previousEncodingAESKey']) {
      expect(fields).not.toContain(secret);
    }
  });
});
