import { z } from 'zod';
import type { Setting } from './setting';
import { httpSettings } from './settings-http';
import { storeSettings } from './settings-stores';
import { wechatSettings } from './settings-wechat';
import { workerSettings } from './settings-worker';

export { DELAY_MODES, type DelayMode } from './settings-stores';
export { ROLES, type Role } from './settings-http';

/** Every variable the service reads, by section, in the order the docs list them. */
export const SETTING_GROUPS = [httpSettings, storeSettings, wechatSettings, workerSettings] as const;

/** Every variable the service reads, by name: the one declaration of each. */
export const SETTINGS = {
  ...httpSettings.settings,
  ...storeSettings.settings,
  ...wechatSettings.settings,
  ...workerSettings.settings,
};
type Settings = typeof SETTINGS;

/** The schema of every variable, with its bounds and default; `loadConfig` maps the result onto Config. */
export const envSchema = z.object(
  Object.fromEntries(Object.entries(SETTINGS).map(([name, s]) => [name, s.schema])) as {
    [N in keyof Settings]: Settings[N]['schema'];
  },
);

/** The Config fields the settings fill one to one, each of its variable's parsed type. */
export type SettingFields = {
  readonly [N in keyof Settings as Settings[N]['key'] & string]: z.output<Settings[N]['schema']>;
};

/** The Config field of each variable that fills one. */
export const FIELDS: readonly (readonly [name: keyof Settings, field: string])[] = (
  Object.entries(SETTINGS) as [keyof Settings, Setting][]
).flatMap(([name, s]) => (s.key === null ? [] : [[name, s.key] as const]));
