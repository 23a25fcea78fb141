import { ConfigError } from '../../../src/errors';
import { loadSimulatorConfig } from '../../../src/simulator/config';

const ACCOUNTS = JSON.stringify([{ appId: 'wx1', secret: 's1', sendRatePerSecond: 5, atLeastOnce: true }]);

describe('loadSimulatorConfig', () => {
  it('defaults to 127.0.0.1:4100 and WeChat’s 7200 s tokens, ignoring the service’s extra account fields', () => {
    expect(loadSimulatorConfig({ WECHAT_ACCOUNTS: ACCOUNTS })).toEqual({
      port: 4100,
      host: '127.0.0.1',
      accounts: [{ appId: 'wx1', secret: 's1' }],
      tokenTtlSeconds: 7200,
      logLevel: 'info',
    });
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
      loadSimulatorConfig({ SIM_PORT: '70000', SIM_TOKEN_TTL_S: 'soon', LOG_LEVEL: 'loud' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).details as string[];
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'SIM_PORT',
      'WECHAT_ACCOUNTS',
      'SIM_TOKEN_TTL_S',
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
    expect(problem('[]')).toMatch(/at least one account/);
    expect(problem('[{"appId":"wx1","secret":"a"},{"appId":"wx1","secret":"b"}]')).toMatch(/unique/);
  });
});
