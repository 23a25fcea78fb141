import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { FIELDS, SETTINGS } from '../../../src/config/env-schema';
import { renderEnvExample, withConfigTables } from '../../../src/config/reference';
import { defaultOf, isRequired } from '../../../src/config/setting';
import { otherSettings } from '../../../src/config/settings-other';
import { loadSimulatorConfig } from '../../../src/simulator/config';
import { envExample } from '../../acceptance/support/env-example';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
/** `text` formatted by the repository's prettier as `file` (jest cannot load prettier 3 in-process). */
const formatted = (text: string, file: string) =>
  execFileSync(path.join(ROOT, 'node_modules/.bin/prettier'), ['--stdin-filepath', file], {
    cwd: ROOT,
    input: text,
    encoding: 'utf8',
  });

describe('each setting declared once: the generated files agree with the declaration', () => {
  it('docs/configuration.md holds exactly the tables `npm run docs:config` renders', () => {
    const committed = read('docs/configuration.md');
    expect(committed).toBe(formatted(withConfigTables(committed), 'docs/configuration.md'));
  });

  it('.env.example is exactly what `npm run docs:config` renders', () => {
    expect(read('.env.example')).toBe(renderEnvExample());
  });

  it('lists every variable the service reads, with a sentence, a default or "required", and fills every Config field', () => {
    const docs = read('docs/configuration.md');
    for (const [name, s] of Object.entries(SETTINGS)) {
      expect(docs).toContain(`| \`${name}\``);
      expect(s.doc.length).toBeGreaterThan(10);
      const optional = s.schema.safeParse(undefined).success;
      expect({
        name,
        described: defaultOf(s.schema) !== undefined || isRequired(s.schema) || optional,
      }).toEqual({
        name,
        described: true,
      });
    }
    const config = loadConfig({ ADMIN_TOKEN: 'a-very-long-admin-token' });
    const computed = ['workerSendConcurrency', 'platform'];
    expect(Object.keys(config).sort()).toEqual(
      [...FIELDS.map(([, field]) => field).filter((f) => !computed.includes(f)), ...computed].sort(),
    );
  });

  it('.env.example, with the token and key `make run` adds and what it derives, is a configuration the service accepts', () => {
    expect(envExample()).toMatchObject({ ADMIN_TOKEN: '', ACCOUNTS_ENCRYPTION_KEY: '' });
    const env = applyLocalDefaults({
      ...envExample(),
      ADMIN_TOKEN: randomBytes(24).toString('base64url'),
      ACCOUNTS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    });
    expect(loadConfig(env)).toMatchObject({
      role: 'all',
      httpPort: 3000,
      opsPort: 3001,
      wechatApiBaseUrl: 'http://127.0.0.1:4100',
    });
    expect(loadConfig(env).platform).toMatchObject({
      componentAppId: 'wxdemoplatform0001',
      loginPageUrl: 'http://127.0.0.1:4100/cgi-bin/componentloginpage',
    });
  });
});

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { applyLocalDefaults } = require('../../../scripts/lib/local-defaults') as {
  applyLocalDefaults: (env: Record<string, string>) => Record<string, string>;
};

describe("the simulator's variables, documented beside the service's", () => {
  const sim = Object.entries(otherSettings.settings).filter(([, s]) => s.readBy === 'simulator');
  const changed: Record<string, string> = {
    SIM_PORT: '4199',
    SIM_HOST: '0.0.0.0',
    SIM_TOKEN_TTL_S: '60',
    SIM_WEBHOOK_URL: 'http://127.0.0.1:3999',
    SIM_ENFORCE_WINDOW: 'false',
    SIM_TICKET_INTERVAL_MS: '1000',
  };

  it.each(sim)('%s: the documented default is what the simulator uses when it is unset', (name, s) => {
    expect(loadSimulatorConfig({ [name]: s.default })).toEqual(loadSimulatorConfig({}));
  });

  it.each(Object.entries(changed))(
    '%s is read by the simulator (another value changes its config)',
    (name, value) => {
      expect(loadSimulatorConfig({ [name]: value })).not.toEqual(loadSimulatorConfig({}));
    },
  );
});
