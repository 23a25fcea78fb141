// Moving a port under make run is one edit: with the simulator, the URLs between the processes and the ops
// port follow from HTTP_HOST/HTTP_PORT and SIM_HOST/SIM_PORT unless set (scripts/lib/local-defaults.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { localDefaults } = require('../../../scripts/lib/local-defaults') as {
  localDefaults: (env: Record<string, string | undefined>) => Record<string, string>;
};

describe('scripts/lib/local-defaults.js', () => {
  it('derives the ops port, the webhook, the simulator and its login page from the ports', () => {
    expect(
      localDefaults({
        START_SIMULATOR: 'true',
        HTTP_PORT: '3100',
        SIM_PORT: '4200',
        WECHAT_COMPONENT_APP_ID: 'wxdemoplatform0001',
      }),
    ).toEqual({
      OPS_PORT: '3101',
      SIM_WEBHOOK_URL: 'http://127.0.0.1:3100',
      WECHAT_API_BASE_URL: 'http://127.0.0.1:4200',
      WECHAT_COMPONENT_LOGIN_PAGE_URL: 'http://127.0.0.1:4200/cgi-bin/componentloginpage',
    });
  });

  it('keeps what is set (an empty value counts as unset), and derives nothing without the simulator', () => {
    expect(
      localDefaults({
        START_SIMULATOR: 'true',
        OPS_PORT: '9000',
        WECHAT_API_BASE_URL: 'http://sim.local:1',
        SIM_WEBHOOK_URL: '',
      }),
    ).toEqual({ SIM_WEBHOOK_URL: 'http://127.0.0.1:3000' });
    expect(localDefaults({ START_SIMULATOR: 'false', HTTP_PORT: '3100' })).toEqual({});
  });
});
