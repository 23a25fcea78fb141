import type { OtherSetting } from './setting';

/**
 * Variables of `.env` that the service does not read: `make run` and the WeChat simulator do (the
 * simulator checks them in src/simulator/config.ts; a unit test holds these defaults to what it does).
 */
export const otherSettings: { readonly title: string; readonly settings: Record<string, OtherSetting> } = {
  title: 'make run and the WeChat simulator',
  settings: {
    START_SIMULATOR: {
      readBy: 'make run',
      doc: '`make run` starts the WeChat simulator when this is `true` (set `false` with a real account)',
      default: 'false',
      example: 'true',
    },
    SIM_PORT: { readBy: 'simulator', doc: 'the simulator’s port (`npm run simulator`)', default: '4100' },
    SIM_HOST: { readBy: 'simulator', doc: 'the simulator’s interface', default: '127.0.0.1' },
    SIM_TOKEN_TTL_S: {
      readBy: 'simulator',
      doc: 'the life of an access token the simulator issues',
      default: '7200',
      unit: 's',
    },
    SIM_WEBHOOK_URL: {
      readBy: 'simulator',
      doc: 'where the simulator pushes follower events (its `/__sim/users/…` routes) and the platform’s tickets (with `START_SIMULATOR=true`, `make run` derives it from `HTTP_HOST` and `HTTP_PORT` when unset)',
      default: 'http://127.0.0.1:3000',
    },
    SIM_ENFORCE_WINDOW: {
      readBy: 'simulator',
      doc: 'whether the simulator answers 45015 / 45047 by the contact-window rules',
      default: 'true',
    },
    SIM_TICKET_INTERVAL_MS: {
      readBy: 'simulator',
      doc: 'with `WECHAT_COMPONENT_*`: how often the simulated Open Platform pushes a `component_verify_ticket`',
      default: '600000',
      unit: 'ms',
    },
    SIM_PUSH_FORMATS: {
      readBy: 'simulator',
      doc: 'each account’s push data format, as JSON appId → `"xml"` or `"json"` (e.g. `{"wxdemo0000000001":"json"}`); all XML when unset',
      default: '{}',
    },
  },
};
