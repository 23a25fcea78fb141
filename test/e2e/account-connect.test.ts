import type { Page } from 'playwright-core';
import type { Service } from '../../src/main/start-service';
import { anAppId } from '../helpers/builders';
import { ADMIN_TOKEN, createHarness, freePort, type Harness } from '../helpers/harness';
import { foreignWords } from '../helpers/language-scan';
import { aPlatform } from '../helpers/platform';
import { adminUrl, apiJsonOf, expectText, launchBrowser, type TestBrowser } from './browser';

// The service runs as a third-party platform whose Open Platform the simulator plays: its authorization
// page is where the admin's browser goes from "Connect an official account", and comes back from.
const PLATFORM = aPlatform();
const CONNECTED = anAppId();

jest.setTimeout(60_000);

/** WeChat's clock runs this far ahead of ours (an authorization code left to expire). */
let wechatAheadMs = 0;
let world: { h: Harness; service: Service; browser: TestBrowser; page: Page };

async function signIn(page: Page, service: Service): Promise<void> {
  await page.goto(adminUrl(service, 'sign-in'));
  await page.fill('input[name="token"]', ADMIN_TOKEN);
  await page.click('button[type="submit"]');
  await page.waitForSelector('#sequences');
}

beforeAll(async () => {
  const h = await createHarness(
    {},
    { simulatorComponent: PLATFORM, simulatorNow: () => Date.now() + wechatAheadMs },
  );
  const service = await h.start({
    ...PLATFORM.env,
    WECHAT_COMPONENT_LOGIN_PAGE_URL: `${h.simulatorUrl}/cgi-bin/componentloginpage`,
  });
  expect((await h.simulator.openPlatform!.pushTicket()).body).toBe('success');
  const browser = await launchBrowser();
  world = { h, service, browser, page: browser.page };
  await signIn(browser.page, service);
});
afterAll(async () => {
  await world?.browser.close();
  await world?.h.close();
});

const page = () => world.page;
const accountCount = async () =>
  (await world.h.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts')).rows[0].n;

describe('"Connect an official account" on the Accounts page', () => {
  it('goes through WeChat’s authorization page and back to the new account, listed with its permissions', async () => {
    await page().click('[data-nav="accounts"]');
    await page().click('[data-action="connect"]');
    await expectText(page().locator('#connect'), '该链接仅可使用一次');
    await world.browser.screenshot('account-connect');
    const link = page().locator('[data-action="authorize"]');
    expect(await link.getAttribute('href')).toMatch(`${world.h.simulatorUrl}/cgi-bin/componentloginpage?`);

    const opened = page().waitForRequest((r) => r.url().startsWith(world.h.simulatorUrl));
    await link.click();
    // WeChat checks that the link was clicked on the platform's registered domain.
    expect((await opened).headers().referer).toBe(`${world.service.url}/`);
    await page().fill('input[name="sim_appid"]', CONNECTED);
    await page().fill('input[name="sim_func"]', '1');
    await page().click('button[type="submit"]');

    await page().waitForURL(new RegExp(`/admin/accounts/${CONNECTED}\\?connected=created$`));
    const notice = page().locator('[data-connect="created"]');
    await expectText(notice, `已接入 ${CONNECTED}：通过第三方平台新增的公众号。`);
    await expectText(notice, '已授予的权限集：1。');
    await expectText(notice, '未授予：模板消息');
    const row = page().locator(`tr[data-account="${CONNECTED}"]`);
    await expectText(row, '第三方平台授权');
    await expectText(row.locator('[data-status]'), '正常');
    await world.browser.screenshot('account-connected');
    expect(await apiJsonOf(world.h, world.service, `/v1/accounts/${CONNECTED}`)).toMatchObject({
      kind: 'platform',
      permissions: [1],
      missingPermissions: ['template'],
    });
  });

  it('shows the connection in the activity log as WeChat’s doing, and the revocation after it', async () => {
    await world.h.simulator.openPlatform!.authorize(CONNECTED, 'unauthorize');
    await page().click('[data-nav="audit"]');
    const revoked = page().locator('#audit tr[data-audit-action="account.unauthorized"]');
    await revoked.waitFor();
    expect((await revoked.locator('td').allTextContents()).slice(1, 4)).toEqual([
      '微信',
      'wechat',
      '取消了公众号的授权',
    ]);
    await expectText(revoked.locator('td.details'), '公众号管理员在微信中取消授权，取消了 0 条待发送消息');
    const authorized = page().locator('#audit tr[data-audit-action="account.authorized"]');
    expect(await authorized.locator('td.what').textContent()).toBe('授权接入了公众号');
    expect(await authorized.locator('td.details').textContent()).toBe('首次接入，权限集 1 个');
    await world.browser.screenshot('account-connect-audit');
  });

  it('a link the service did not make, or an expired code, lands on the Accounts page with the error in words, writing nothing', async () => {
    const before = await accountCount();
    await page().goto(
      `${world.service.url}/wechat/platform/callback?auth_code=queryauthcode%40%40%40never-issued`,
    );
    await page().waitForURL(/\/admin\/accounts\?connect_error=state_invalid$/);
    await expectText(page().locator('[data-connect="error"]'), '该授权链接不是本服务生成的');

    await page().click('[data-action="connect"]');
    await page().locator('[data-action="authorize"]').click();
    await page().fill('input[name="sim_appid"]', anAppId());
    // WeChat issues the code and redirects; by the time the browser follows, its clock is 10 min on. Its
    // `authorized` push is lost: the service would exchange the code from it at once.
    world.h.simulator.openPlatform!.losePushes(true);
    await page().route(/[?&]sim_appid=/, async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      wechatAheadMs = 601_000;
      await route.fulfill({ response });
    });
    try {
      await page().click('button[type="submit"]');
      await page().waitForURL(/\/admin\/accounts\?connect_error=auth_code_expired$/);
    } finally {
      wechatAheadMs = 0;
      world.h.simulator.openPlatform!.losePushes(false);
      await page().unrouteAll();
    }
    await expectText(page().locator('[data-connect="error"]'), '授权码在到达本服务之前已过期');
    await world.browser.screenshot('account-connect-error');
    expect(await accountCount()).toBe(before);
  });

  it('when WeChat refuses a pre-auth code, says why and shows no link', async () => {
    const whitelist = (registered: boolean) =>
      fetch(`${world.h.simulatorUrl}/__sim/component/ip-whitelist`, {
        method: 'POST',
        body: JSON.stringify({ registered }),
      });
    await page().click('[data-nav="accounts"]');
    expect((await whitelist(false)).status).toBe(200);
    try {
      await page().click('[data-action="connect"]');
      await expectText(page().locator('#connect .error'), '无法发起授权：');
      // Why, and what to do: WeChat's errcode, worded.
      await expectText(page().locator('#connect .error'), 'IP 白名单中添加它');
    } finally {
      await whitelist(true);
    }
    expect(await page().locator('[data-action="authorize"]').count()).toBe(0);
    await world.browser.screenshot('account-connect-refused');
  });

  it('without the platform configured, the page says what connecting needs and offers no button', async () => {
    const plain = await world.h.start({ HTTP_PORT: String(await freePort()) });
    await signIn(page(), plain);
    await page().click('[data-nav="accounts"]');
    await expectText(page().locator('[data-connect="unavailable"]'), 'WECHAT_COMPONENT_*');
    expect(await page().locator('[data-action="connect"]').count()).toBe(0);
    // Chinese throughout: the setting names are the only Latin (identifiers).
    expect(foreignWords(await page().locator('#main').innerText(), 'zh-CN')).toEqual([]);
    await world.browser.screenshot('account-connect-unavailable');
  });

  it('ran without script errors or Content-Security-Policy violations', () => {
    expect(world.browser.problems).toEqual([]);
  });
});
