import { loadConfig, loadMigrateConfig } from '../../src/config';
import { ConfigError } from '../../src/errors';
import { WINDOW_PRESETS } from '../../src/wechat/window-policy';

const minimal = {
  ADMIN_TOKEN: 'a-very-long-admin-token',
  WECHAT_ACCOUNTS: '[{"appId":"wx0000000000000001","secret":"s"}]',
};

describe('loadConfig', () => {
  it('fills every non-secret default and freezes the result', () => {
    const config = loadConfig(minimal);
    expect(config).toMatchObject({
      role: 'all',
      httpPort: 3000,
      delayMode: 'auto',
      levelsUnitMs: 100,
      levelsCount: 26,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/wechat_drip',
      rabbitmqUrl: 'amqp://guest:guest@127.0.0.1:5672',
    });
    expect(config.wechatAccounts).toEqual([
      {
        appId: 'wx0000000000000001',
        secret: 's',
        sendRatePerSecond: 1000,
        atLeastOnce: false,
        token: null,
        encodingAESKey: null,
        previousEncodingAESKey: null,
        pushMode: 'plaintext',
        windowPolicy: WINDOW_PRESETS.official,
      },
    ]);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reports every problem together in one error', () => {
    const attempt = () =>
      loadConfig({
        HTTP_PORT: 'eighty',
        DELAY_MODE: 'maybe',
        WECHAT_ACCOUNTS: 'not json',
        ADMIN_TOKEN: 'short',
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      const problems = (err as ConfigError).details as string[];
      expect(problems.map((p) => p.split(':')[0])).toEqual(
        expect.arrayContaining(['HTTP_PORT', 'DELAY_MODE', 'WECHAT_ACCOUNTS', 'ADMIN_TOKEN']),
      );
    }
  });

  it('gives a worker as many send slots as WeChat connections by default, and never more', () => {
    expect(loadConfig(minimal).workerSendConcurrency).toBe(64);
    expect(loadConfig({ ...minimal, WECHAT_MAX_CONNECTIONS: '16' }).workerSendConcurrency).toBe(16);
    expect(loadConfig({ ...minimal, WORKER_SEND_CONCURRENCY: '8' }).workerSendConcurrency).toBe(8);
    expect(() =>
      loadConfig({ ...minimal, WECHAT_MAX_CONNECTIONS: '16', WORKER_SEND_CONCURRENCY: '32' }),
    ).toThrow(/WORKER_SEND_CONCURRENCY: must not be above WECHAT_MAX_CONNECTIONS/);
  });

  it('puts the ops listener on loopback port 3001 and cuts slow requests after 30 s by default', () => {
    expect(loadConfig(minimal)).toMatchObject({
      opsHost: '127.0.0.1',
      opsPort: 3001,
      httpRequestTimeoutMs: 30_000,
      httpHeadersTimeoutMs: 10_000,
      httpKeepAliveTimeoutMs: 5_000,
      httpMaxConnections: 1000,
    });
  });

  it('refuses the old WORKER_HTTP_PORT, naming OPS_PORT, rather than moving a health port silently', () => {
    expect(() => loadConfig({ ...minimal, WORKER_HTTP_PORT: '3001' })).toThrow(
      /WORKER_HTTP_PORT: replaced by OPS_PORT/,
    );
  });

  it('refuses an OPS_PORT equal to HTTP_PORT in a role that serves the API, and a headers timeout above the request timeout', () => {
    expect(() => loadConfig({ ...minimal, ROLE: 'api', HTTP_PORT: '8080', OPS_PORT: '8080' })).toThrow(
      /OPS_PORT: must differ from HTTP_PORT/,
    );
    expect(loadConfig({ ...minimal, ROLE: 'worker', HTTP_PORT: '8080', OPS_PORT: '8080' }).opsPort).toBe(
      8080,
    );
    expect(() =>
      loadConfig({ ...minimal, HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' }),
    ).toThrow(/HTTP_HEADERS_TIMEOUT_MS: must not be above HTTP_REQUEST_TIMEOUT_MS/);
  });

  it('requires the secrets and the accounts rather than inventing them', () => {
    expect(() => loadConfig({})).toThrow(/ADMIN_TOKEN: is required[\s\S]*WECHAT_ACCOUNTS: is required/);
  });

  it('refuses duplicate appIds and unknown account fields', () => {
    expect(() =>
      loadConfig({
        ...minimal,
        WECHAT_ACCOUNTS: '[{"appId":"wx1234","secret":"a"},{"appId":"wx1234","secret":"b"}]',
      }),
    ).toThrow(/appIds must be unique/);
    expect(() =>
      loadConfig({ ...minimal, WECHAT_ACCOUNTS: '[{"appId":"wx1234","secret":"a","sekret":"b"}]' }),
    ).toThrow(/sekret/);
    // The simulator's push format is its own setting (SIM_PUSH_FORMATS), not the service's.
    expect(() =>
      loadConfig({ ...minimal, WECHAT_ACCOUNTS: '[{"appId":"wx1234","secret":"a","pushFormat":"json"}]' }),
    ).toThrow(/pushFormat/);
  });

  it('takes a window policy by preset name or as a rule per interaction kind', () => {
    const account = (extra: object) =>
      loadConfig({
        ...minimal,
        WECHAT_ACCOUNTS: JSON.stringify([{ appId: 'wx1234', secret: 'a', ...extra }]),
      }).wechatAccounts[0];
    expect(account({ windowPolicy: 'legacy-48h' }).windowPolicy).toBe(WINDOW_PRESETS['legacy-48h']);
    expect(account({ windowPolicy: 'none' }).windowPolicy).toBeNull();
    const rule = { count: 2, windowMs: 10_000 };
    const custom = { message: rule, subscribe: rule, scan: rule, click: rule };
    expect(account({ windowPolicy: custom }).windowPolicy).toEqual(custom);
    expect(() => account({ windowPolicy: { message: rule } })).toThrow(/windowPolicy/);
  });

  it('needs an EncodingAESKey for the compatible and safe push modes', () => {
    expect(() =>
      loadConfig({
        ...minimal,
        WECHAT_ACCOUNTS: '[{"appId":"wx1234","secret":"a","token":"abc","pushMode":"safe"}]',
      }),
    ).toThrow(/encodingAESKey/);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ ...minimal, HTTP_PORT: '' }).httpPort).toBe(3000);
  });
});

describe('loadMigrateConfig', () => {
  it('needs nothing but an optional DATABASE_URL', () => {
    expect(loadMigrateConfig({ DATABASE_URL: 'postgres://u@h:5/db' }).databaseUrl).toBe(
      'postgres://u@h:5/db',
    );
    expect(() => loadMigrateConfig({ DATABASE_URL: 'nope' })).toThrow(ConfigError);
  });
});
