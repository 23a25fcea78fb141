import { ConfigError } from '../../../src/errors';
import { loadSimulatorConfig } from '../../../src/simulator/config';

const ACCOUNTS = JSON.stringify([{ appId: 'wx1', secret: 's1', sendRatePerSecond: 5, atLeastOnce: true }]);

describe('loadSimulatorConfig', () => {
  it('defaults to 127.0.0.1:4100, WeChat’s 7200 s tokens, plaintext XML pushes to :3000 and the official window, ignoring the service’s extra account fields', () => {
    expect(loadSimulatorConfig({ WECHAT_ACCOUNTS: ACCOUNTS })).toEqual({
      port: 4100,
      host: '127.0.0.1',
      accounts: [
        { appId: 'wx1', secret: 's1', pushMode: 'plaintext', pushFormat: 'xml', windowPolicy: 'official' },
      ],
      tokenTtlSeconds: 7200,
      webhookBaseUrl: 'http://127.0.0.1:3000',
      enforceContactWindow: true,
      component: null,
      ticketIntervalMs: 600_000,
      logLevel: 'info',
    });
  });

  it('plays the Open Platform of the service’s WECHAT_COMPONENT_* (all four or none), at SIM_TICKET_INTERVAL_MS', () => {
    const component = {
      WECHAT_COMPONENT_APP_ID: 'wxcomponent1',
      WECHAT_COMPONENT_SECRET: 'component-secret',
      WECHAT_COMPONENT_TOKEN: 'componenttoken',
      WECHAT_COMPONENT_ENCODING_AES_KEY: 'B'.repeat(43),
    };
    const config = loadSimulatorConfig({ ...component, SIM_TICKET_INTERVAL_MS: '1000' });
    expect(config.component).toEqual({
      componentAppId: 'wxcomponent1',
      secret: 'component-secret',
      token: 'componenttoken',
      encodingAESKey: 'B'.repeat(43),
    });
    expect(config.ticketIntervalMs).toBe(1000);
    expect(() => loadSimulatorConfig({ WECHAT_COMPONENT_APP_ID: 'wxcomponent1' })).toThrow(
      /all four or none/,
    );
  });

  it('reads the push and window settings of each account, SIM_PUSH_FORMATS, SIM_WEBHOOK_URL and SIM_ENFORCE_WINDOW', () => {
    const custom = {
      message: { count: 2, windowMs: 1000 },
      subscribe: { count: 1, windowMs: 500 },
      scan: { count: 1, windowMs: 500 },
      click: { count: 1, windowMs: 500 },
    };
    const accounts = [
      {
        appId: 'wx1',
        secret: 's1',
        token: 't1',
        encodingAESKey: 'A'.repeat(43),
        pushMode: 'safe',
        windowPolicy: custom,
      },
      { appId: 'wx2', secret: 's2', windowPolicy: 'legacy-48h' },
    ];
    const config = loadSimulatorConfig({
      WECHAT_ACCOUNTS: JSON.stringify(accounts),
      SIM_PUSH_FORMATS: '{"wx1":"json"}',
      SIM_WEBHOOK_URL: 'http://api.local:8080/',
      SIM_ENFORCE_WINDOW: 'false',
    });
    expect(config.accounts).toEqual([
      { ...accounts[0], pushFormat: 'json' },
      { ...accounts[1], pushMode: 'plaintext', pushFormat: 'xml' },
    ]);
    expect(config.webhookBaseUrl).toBe('http://api.local:8080');
    expect(config.enforceContactWindow).toBe(false);
  });

  it('refuses safe mode without a key, a malformed key, an unknown policy and custom rules missing a kind', () => {
    const problems = (account: object) => {
      try {
        loadSimulatorConfig({
          WECHAT_ACCOUNTS: JSON.stringify([{ appId: 'wx1', secret: 's1', ...account }]),
        });
      } catch (err) {
        return ((err as ConfigError).details as string[]).join('\n');
      }
      return 'accepted';
    };
    expect(problems({ pushMode: 'safe' })).toMatch(/need an encodingAESKey/);
    expect(problems({ encodingAESKey: 'short' })).toMatch(/43 letters or digits/);
    expect(problems({ windowPolicy: 'generous' })).toMatch(/windowPolicy/);
    expect(problems({ windowPolicy: { message: { count: 5, windowMs: 1000 } } })).toMatch(/windowPolicy/);
    expect(problems({ pushMode: 'compatible', encodingAESKey: 'B'.repeat(43) })).toBe('accepted');
  });

  it('takes push formats only from SIM_PUSH_FORMATS, for known accounts, as xml or json', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadSimulatorConfig({ WECHAT_ACCOUNTS: JSON.stringify([{ appId: 'wx1', secret: 's1' }]), ...env });
      } catch (err) {
        return ((err as ConfigError).details as string[]).join('\n');
      }
      return 'accepted';
    };
    expect(
      problems({ WECHAT_ACCOUNTS: JSON.stringify([{ appId: 'wx1', secret: 's1', pushFormat: 'json' }]) }),
    ).toBe('WECHAT_ACCOUNTS.0.pushFormat: is no longer an account field: set it in SIM_PUSH_FORMATS');
    expect(problems({ SIM_PUSH_FORMATS: '{"wx1":"yaml"}' })).toMatch(/^SIM_PUSH_FORMATS\.wx1: /);
    expect(problems({ SIM_PUSH_FORMATS: '["json"]' })).toMatch(/^SIM_PUSH_FORMATS: /);
    expect(problems({ SIM_PUSH_FORMATS: '{"wx2":"json","wx3":"xml"}' })).toBe(
      'SIM_PUSH_FORMATS: wx2, wx3 not in WECHAT_ACCOUNTS',
    );
    expect(problems({ SIM_PUSH_FORMATS: '{"wx1":"xml"}' })).toBe('accepted');
  });

  it('reads SIM_PORT, SIM_HOST, SIM_TOKEN_TTL_S and LOG_LEVEL', () => {
    const env = {
      WECHAT_ACCOUNTS: ACCOUNTS,
      SIM_PORT: '0',
      SIM_HOST: '0.0.0.0',
      SIM_TOKEN_TTL_S: '60',
      LOG_LEVEL: 'warn',
    };
    expect(loadSimulatorConfig(env)).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      tokenTtlSeconds: 60,
      logLevel: 'warn',
    });
  });

  it('reports every problem at once', () => {
    let error: unknown;
    try {
      loadSimulatorConfig({
        SIM_PORT: '70000',
        WECHAT_ACCOUNTS: '{}',
        SIM_TOKEN_TTL_S: 'soon',
        SIM_WEBHOOK_URL: 'ftp://x',
        SIM_PUSH_FORMATS: '{',
        SIM_ENFORCE_WINDOW: 'maybe',
        LOG_LEVEL: 'loud',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).details as string[];
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'SIM_PORT',
      'WECHAT_ACCOUNTS',
      'SIM_TOKEN_TTL_S',
      'SIM_WEBHOOK_URL',
      'SIM_PUSH_FORMATS',
      'SIM_ENFORCE_WINDOW',
      'LOG_LEVEL',
    ]);
  });

  it('refuses accounts that are not JSON, empty, or repeat an appId', () => {
    const problem = (accounts: string) => {
      try {
        loadSimulatorConfig({ WECHAT_ACCOUNTS: accounts });
      } catch (err) {
        return ((err as ConfigError).details as string[])[0];
      }
      return undefined;
    };
    expect(problem('[{')).toMatch(/not valid JSON/);
    expect(problem('[]')).toBeUndefined();
    expect(loadSimulatorConfig({}).accounts).toEqual([]);
    expect(problem('[{"appId":"wx1","secret":"a"},{"appId":"wx1","secret":"b"}]')).toMatch(/unique/);
  });
});
