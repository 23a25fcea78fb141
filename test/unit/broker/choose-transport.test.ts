import { chooseTransport } from '../../../src/broker/choose-transport';
import type { ProbeResult } from '../../../src/broker/probe';
import { loadConfig } from '../../../src/config';
import { AppError } from '../../../src/errors';
import { silentLogger } from '../../helpers/logger';

const configFor = (env: Record<string, string>) =>
  loadConfig({
    ADMIN_TOKEN: 'a-very-long-admin-token',
    WECHAT_ACCOUNTS: '[{"appId":"wx0000000000000001","secret":"s"}]',
    BROKER_PREFIX: 'shop',
    LEVELS_UNIT_MS: '250',
    LEVELS_COUNT: '10',
    ...env,
  });

/** A probe that answers `result` and records the exchange it was asked about. */
function probeAnswering(result: Omit<ProbeResult, 'serverVersion'>) {
  const asked: string[] = [];
  const probe = (_urls: readonly string[], exchange: string) => {
    asked.push(exchange);
    return Promise.resolve({ ...result, serverVersion: '3.13.7' });
  };
  return { probe, asked };
}

describe('chooseTransport', () => {
  it('takes DELAY_MODE=levels as configured, without a probe, with the levels shape from the config', async () => {
    const { probe, asked } = probeAnswering({ pluginAvailable: true, reason: 'present' });
    const choice = await chooseTransport(configFor({ DELAY_MODE: 'levels' }), silentLogger, probe);
    expect(asked).toEqual([]);
    expect(choice.reason).toBe('DELAY_MODE=levels');
    expect(choice.transport.mode).toBe('levels');
    expect(choice.transport.maxDelayMs).toBe((2 ** 10 - 1) * 250);
    expect(choice.names.due).toBe('shop.due');
    expect(choice.transport.route(750).exchange).toBe(choice.names.level(0)); // two units early
    expect(choice.names.level(0)).toBe('shop.delay.250ms.00');
  });

  it('in auto mode, probes the delayed exchange of the configured prefix and takes the plugin when present', async () => {
    const { probe, asked } = probeAnswering({ pluginAvailable: true, reason: 'declared' });
    const choice = await chooseTransport(
      configFor({ DELAY_MODE: 'auto', PLUGIN_MAX_DELAY_MS: '60000' }),
      silentLogger,
      probe,
    );
    expect(asked).toEqual(['shop.delayed']);
    expect(choice.transport.mode).toBe('plugin');
    expect(choice.transport.maxDelayMs).toBe(60_000);
    expect(choice.reason).toBe('auto: declared (RabbitMQ 3.13.7)');
  });

  it('in auto mode, falls back to the levels when the plugin is absent', async () => {
    const { probe } = probeAnswering({ pluginAvailable: false, reason: 'plugin absent (503)' });
    const choice = await chooseTransport(configFor({ DELAY_MODE: 'auto' }), silentLogger, probe);
    expect(choice.transport.mode).toBe('levels');
    expect(choice.reason).toBe('auto: plugin absent (503) (RabbitMQ 3.13.7)');
  });

  it('refuses DELAY_MODE=plugin on a broker without the plugin', async () => {
    const { probe } = probeAnswering({ pluginAvailable: false, reason: 'plugin absent (406)' });
    const attempt = chooseTransport(configFor({ DELAY_MODE: 'plugin' }), silentLogger, probe);
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({ code: 'broker_config', retryable: false });
  });
});
