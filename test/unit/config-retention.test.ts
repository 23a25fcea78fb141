import { loadConfig } from '../../src/config';
import { ConfigError } from '../../src/errors';

const minimal = { ADMIN_TOKEN: 'a-very-long-admin-token' };
const problems = (env: Record<string, string>) => {
  try {
    loadConfig({ ...minimal, ...env });
  } catch (err) {
    return (err as ConfigError).message;
  }
  return '';
};

describe('loadConfig, retention', () => {
  it('keeps finished rows 30 days, prunes 1,000 rows a batch, every 60 s by default', () => {
    expect(loadConfig(minimal)).toMatchObject({
      retentionFinishedAfterMs: 30 * 86_400_000,
      retentionBatch: 1000,
      retentionIntervalMs: 60_000,
    });
  });

  it('reads durations with a unit (d, h, m, s, ms) or in ms', () => {
    const at = (value: string) => loadConfig({ ...minimal, RETENTION_FINISHED_AFTER: value });
    expect(at('7d').retentionFinishedAfterMs).toBe(7 * 86_400_000);
    expect(at('12h').retentionFinishedAfterMs).toBe(12 * 3_600_000);
    expect(at('15m').retentionFinishedAfterMs).toBe(900_000);
    expect(at('90s').retentionFinishedAfterMs).toBe(90_000);
    expect(at('1500ms').retentionFinishedAfterMs).toBe(1500);
    expect(at('2000').retentionFinishedAfterMs).toBe(2000);
    expect(loadConfig({ ...minimal, RETENTION_INTERVAL: '250ms' }).retentionIntervalMs).toBe(250);
  });

  it('0 or off turns retention off', () => {
    expect(loadConfig({ ...minimal, RETENTION_FINISHED_AFTER: 'off' }).retentionFinishedAfterMs).toBeNull();
    expect(loadConfig({ ...minimal, RETENTION_FINISHED_AFTER: '0' }).retentionFinishedAfterMs).toBeNull();
  });

  it('refuses what is not a duration, or too short, naming the variable', () => {
    expect(problems({ RETENTION_FINISHED_AFTER: '30 days' })).toMatch(
      /RETENTION_FINISHED_AFTER: must be a duration/,
    );
    expect(problems({ RETENTION_FINISHED_AFTER: '500ms' })).toMatch(
      /RETENTION_FINISHED_AFTER: must be a duration of at least 1000 ms/,
    );
    expect(problems({ RETENTION_INTERVAL: 'off' })).toMatch(/RETENTION_INTERVAL: must be a duration/);
    expect(problems({ RETENTION_BATCH: '0' })).toMatch(/RETENTION_BATCH/);
  });
});
