import { loadConfig, loadMigrateConfig } from '../../src/config';
import { ConfigError } from '../../src/errors';

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
      rabbitmqUrls: ['amqp://guest:guest@127.0.0.1:5672'],
    });
    expect(config.bootstrapAccounts).toEqual([
      {
        appId: 'wx0000000000000001',
        secret: 's',
        sendRatePerSecond: 1000,
        atLeastOnce: false,
        token: null,
        encodingAESKey: null,
        previousEncodingAESKey: null,
        pushMode: 'plaintext',
        windowPolicy: 'official',
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

  it('takes RABBITMQ_URL as a comma-separated list of nodes, and names a bad entry without quoting it', () => {
    const nodes = 'amqp://drip:pw@mq1:5672/drip, amqp://drip:pw@mq2:5672/drip,amqps://drip:pw@mq3/drip';
    expect(loadConfig({ ...minimal, RABBITMQ_URL: nodes }).rabbitmqUrls).toEqual([
      'amqp://drip:pw@mq1:5672/drip',
      'amqp://drip:pw@mq2:5672/drip',
      'amqps://drip:pw@mq3/drip',
    ]);
    const problems = (value: string): string[] => {
      try {
        loadConfig({ ...minimal, RABBITMQ_URL: value });
      } catch (err) {
        return ((err as ConfigError).details as string[]).filter((p) => p.startsWith('RABBITMQ_URL'));
      }
      return [];
    };
    expect(problems('amqp://drip:secret@mq1,http://drip:secret@mq2,')).toEqual([
      'RABBITMQ_URL: entry 2 is not an amqp:// or amqps:// URL',
      'RABBITMQ_URL: entry 3 is not an amqp:// or amqps:// URL',
    ]);
    expect(problems('mq1:5672')).toEqual(['RABBITMQ_URL: the value is not an amqp:// or amqps:// URL']);
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
      httpKeepAliveTimeoutMs: 65_000,
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

  it('requires the admin token rather than inventing it, and starts with no accounts', () => {
    expect(() => loadConfig({})).toThrow(/ADMIN_TOKEN: is required/);
    const { WECHAT_ACCOUNTS: _, ...noAccounts } = minimal;
    expect(loadConfig(noAccounts).bootstrapAccounts).toEqual([]);
    expect(loadConfig(noAccounts).accountsEncryptionKey).toBeNull();
  });

  it('reads the accounts encryption keys, and names a malformed one without quoting it', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const config = loadConfig({
      ...minimal,
      ACCOUNTS_ENCRYPTION_KEY: key,
      ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: `${key}, ${key}`,
    });
    expect(config.accountsEncryptionKey).toEqual(Buffer.alloc(32, 7));
    expect(config.accountsPreviousEncryptionKeys).toHaveLength(2);
    expect(config.accountsRefreshMs).toBe(30_000);
    const bad = () =>
      loadConfig({
        ...minimal,
        ACCOUNTS_ENCRYPTION_KEY: 'tooShortKey',
        ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: 'x',
      });
    expect(bad).toThrow(
      /ACCOUNTS_ENCRYPTION_KEY: the key must be 32 bytes in base64[\s\S]*ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: key 1 must be/,
    );
    expect(bad).not.toThrow(/tooShortKey/);
  });

  it('refuses the token and key this repository once published as defaults, saying how to replace them', () => {
    const published = 'ZGVtby1rZXktbm90LWZvci1wcm9kdWN0aW9uLTAwMDA=';
    for (const token of ['change-me-please-0123', 'change-me-to-a-long-random-string']) {
      expect(() => loadConfig({ ...minimal, ADMIN_TOKEN: token })).toThrow(
        /ADMIN_TOKEN: is a value published in this repository's examples: set a fresh one/,
      );
    }
    const withKey = () => loadConfig({ ...minimal, ACCOUNTS_ENCRYPTION_KEY: published });
    expect(withKey).toThrow(/ACCOUNTS_ENCRYPTION_KEY: is a value published[\s\S]*PREVIOUS_ENCRYPTION_KEYS/);
    expect(withKey).not.toThrow(new RegExp(published.slice(0, 12)));
    // Among the previous keys, it opens what it sealed while the rotation moves it to a fresh key.
    const fresh = Buffer.alloc(32, 9).toString('base64');
    const rotating = loadConfig({
      ...minimal,
      ACCOUNTS_ENCRYPTION_KEY: fresh,
      ACCOUNTS_PREVIOUS_ENCRYPTION_KEYS: published,
    });
    expect(rotating.accountsPreviousEncryptionKeys).toHaveLength(1);
  });

  it("refuses the webhook's route words as WECHAT_ACCOUNTS app ids", () => {
    for (const appId of ['component', 'Platform']) {
      expect(() =>
        loadConfig({ ...minimal, WECHAT_ACCOUNTS: JSON.stringify([{ appId, secret: 'a' }]) }),
      ).toThrow(/WECHAT_ACCOUNTS[\s\S]*appId must not be a route word/);
    }
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
      }).bootstrapAccounts[0];
    expect(account({ windowPolicy: 'legacy-48h' }).windowPolicy).toBe('legacy-48h');
    expect(account({ windowPolicy: 'none' }).windowPolicy).toBe('none');
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

describe('loadConfig: the third-party platform', () => {
  const platform = {
    ACCOUNTS_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
    WECHAT_COMPONENT_APP_ID: 'wxcomponent00000001',
    WECHAT_COMPONENT_SECRET: 'component-secret-value',
    WECHAT_COMPONENT_TOKEN: 'componenttoken',
    WECHAT_COMPONENT_ENCODING_AES_KEY: 'ComponentEncodingAESKey0123456789abcdefghij',
  };

  it('is off when no WECHAT_COMPONENT_* variable is set', () => {
    expect(loadConfig(minimal).platform).toBeNull();
  });

  it('reads all four variables into a frozen platform', () => {
    const config = loadConfig({ ...minimal, ...platform });
    expect(config.platform).toEqual({
      componentAppId: 'wxcomponent00000001',
      componentSecret: 'component-secret-value',
      componentToken: 'componenttoken',
      componentEncodingAESKey: 'ComponentEncodingAESKey0123456789abcdefghij',
      loginPageUrl: 'https://mp.weixin.qq.com/cgi-bin/componentloginpage',
    });
    expect(Object.isFrozen(config.platform)).toBe(true);
  });

  it('names every missing variable when only some are set, without quoting the ones given', () => {
    const attempt = () =>
      loadConfig({
        ...minimal,
        WECHAT_COMPONENT_APP_ID: platform.WECHAT_COMPONENT_APP_ID,
        WECHAT_COMPONENT_SECRET: platform.WECHAT_COMPONENT_SECRET,
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      const problems = (err as ConfigError).details as string[];
      expect(problems.map((p) => p.split(':')[0])).toEqual([
        'WECHAT_COMPONENT_TOKEN',
        'WECHAT_COMPONENT_ENCODING_AES_KEY',
      ]);
      expect(problems.join('\n')).toMatch(/all four or none/);
      expect(problems.join('\n')).not.toContain(platform.WECHAT_COMPONENT_SECRET);
    }
  });

  it('needs ACCOUNTS_ENCRYPTION_KEY, since the platform stores its credentials sealed', () => {
    expect(() => loadConfig({ ...minimal, ...platform, ACCOUNTS_ENCRYPTION_KEY: '' })).toThrow(
      /ACCOUNTS_ENCRYPTION_KEY: is required with the platform/,
    );
  });

  it('refuses a malformed token and EncodingAESKey, naming each and quoting neither', () => {
    const attempt = () =>
      loadConfig({
        ...minimal,
        ...platform,
        WECHAT_COMPONENT_TOKEN: 'has space!',
        WECHAT_COMPONENT_ENCODING_AES_KEY: 'short-key',
      });
    expect(attempt).toThrow(
      /WECHAT_COMPONENT_TOKEN: must be 3–32 letters or digits[\s\S]*WECHAT_COMPONENT_ENCODING_AES_KEY: an EncodingAESKey is 43/,
    );
    expect(attempt).not.toThrow(/short-key|has space/);
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
