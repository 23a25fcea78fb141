import type { Page } from 'playwright-core';
import type { Service } from '../../src/main/start-service';
import { ADMIN_TOKEN, APP_ID, createHarness, type Harness } from '../helpers/harness';
import { adminUrl, apiJsonOf, expectText, launchBrowser, type TestBrowser } from './browser';

// The service starts with one account; the page creates a second one, which the simulator (playing
// WeChat) knows with this AppSecret, so that "Check" gets WeChat's real answer for it.
const FIRST = { appId: APP_ID, secret: 'test-secret', token: 'e2epushtoken', windowPolicy: 'official' };
const NEW = { appId: 'wxe2eaccount0001', secret: 'page-typed-secret-42', token: 'pagetoken42' };
const AES_KEY = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
const WRONG_SECRET = 'a-wrong-secret-typed-here';

jest.setTimeout(60_000);

/** The harness, its service and a signed-in browser, set up once for the file. */
let world: { h: Harness; service: Service; browser: TestBrowser; page: Page };

beforeAll(async () => {
  const h = await createHarness(
    { WECHAT_ACCOUNTS: JSON.stringify([FIRST]) },
    { simulatorAccounts: [FIRST, NEW] },
  );
  const service = await h.start();
  const browser = await launchBrowser();
  world = { h, service, browser, page: browser.page };
  await page().goto(adminUrl(service, 'sign-in'));
  await page().fill('input[name="token"]', ADMIN_TOKEN);
  await page().click('button[type="submit"]');
  await page().waitForSelector('#sequences');
});
afterAll(async () => {
  await world?.browser.close();
  await world?.h.close();
});

const page = () => world.page;
const apiJson = (path: string, init?: RequestInit) => apiJsonOf(world.h, world.service, path, init);
const row = () => page().locator(`tr[data-account="${NEW.appId}"]`);
const fieldOf = (path: string) => page().locator(`#account-form .field[data-path="${path}"]`);

async function openEditor(): Promise<void> {
  await page().click('[data-nav="accounts"]');
  await row().locator('[data-action="edit"]').click();
  await page().waitForSelector('#account-form form');
}

async function save(): Promise<void> {
  await page().click('[data-test="save-account"]');
}

describe('the Accounts page', () => {
  it('refuses a bad app id next to its field, and creates nothing', async () => {
    await page().click('[data-nav="accounts"]');
    await expectText(page().locator('#accounts'), APP_ID);
    await page().click('[data-action="new-account"]');
    await page().fill('input[name="appId"]', 'bad id!');
    await page().fill('input[name="secret"]', NEW.secret);
    await save();
    await expectText(fieldOf('appId').locator('.field-error'), '格式不正确');
    await expectText(page().locator('.save-summary'), '未保存：有 1 处问题');
    await world.browser.screenshot('account-error');
    const listed = await apiJson('/v1/accounts');
    expect(listed.accounts.map((a: { appId: string }) => a.appId)).toEqual([APP_ID]);
  });

  it('creates an account, lists it with its full server URL, and the other pages see it without a reload', async () => {
    await page().fill('input[name="appId"]', NEW.appId);
    await page().fill('input[name="name"]', '第二个公众号');
    await page().fill('input[name="token"]', NEW.token);
    await save();
    await page().waitForURL(/\/admin\/accounts$/);
    await expectText(page().locator('#notice'), `已添加 ${NEW.appId}。`);
    await expectText(row().locator('[data-status]'), '正常');
    await expectText(row().locator('[data-sent-today]'), '0 / 500,000');
    const webhook = `${world.service.url}/wechat/${NEW.appId}`;
    await expectText(page().locator(`[data-webhook-url="${NEW.appId}"]`), webhook);
    const copy = page().locator(`[data-account-detail="${NEW.appId}"] [data-action="copy"]`);
    await world.browser.context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await copy.click();
    await expectText(page().locator('#notice'), `已复制 ${webhook}`);
    expect(await page().evaluate('navigator.clipboard.readText()')).toBe(webhook);
    await world.browser.screenshot('accounts');
    expect(await apiJson(`/v1/accounts/${NEW.appId}`)).toMatchObject({
      name: '第二个公众号',
      hasSecret: true,
      webhook: true,
      hasEncodingAESKey: false,
      enabled: true,
    });

    await page().click('[data-nav="sequences"]');
    await page().click('[data-action="new-sequence"]');
    await expectText(page().locator('select[name="appId"]'), NEW.appId);
  });

  it('where the browser has no clipboard (an http origin other than localhost), Copy selects the URL', async () => {
    await page().click('[data-nav="accounts"]');
    const webhook = `${world.service.url}/wechat/${NEW.appId}`;
    await expectText(page().locator(`[data-webhook-url="${NEW.appId}"]`), webhook);
    await page().evaluate("Object.defineProperty(navigator, 'clipboard', { value: undefined })");
    await page().locator(`[data-account-detail="${NEW.appId}"] [data-action="copy"]`).click();
    await expectText(page().locator('#notice'), '地址已选中');
    expect(await page().evaluate('String(window.getSelection())')).toBe(webhook);
    await page().reload();
  });

  it('edits it: a bad input shows its field error and changes nothing; then the change is saved', async () => {
    const before = await apiJson(`/v1/accounts/${NEW.appId}`);
    await openEditor();
    await expectText(page().locator('[data-secret-state="secret"]'), '已设置');
    await expectText(page().locator('[data-secret-state="encodingAESKey"]'), '未设置');
    await page().fill('input[name="token"]', 'not a token!');
    await page().fill('input[name="sendRatePerSecond"]', '0');
    await save();
    await expectText(fieldOf('token').locator('.field-error'), '格式不正确');
    await expectText(fieldOf('sendRatePerSecond').locator('.field-error'), '不能小于 1');
    expect(await apiJson(`/v1/accounts/${NEW.appId}`)).toEqual(before);

    await page().fill('input[name="token"]', '');
    await page().fill('input[name="sendRatePerSecond"]', '200');
    await page().fill('input[name="encodingAESKey"]', AES_KEY);
    await page().selectOption('select[name="pushMode"]', 'compatible');
    await page().selectOption('select[name="windowPolicy"]', 'custom');
    await page().fill('input[name="message.count"]', '3');
    await page().fill('input[name="message.window"]', '2');
    await page().selectOption('select[name="message.unit"]', 'hours');
    await world.browser.screenshot('account-form');
    await save();
    await page().waitForURL(/\/admin\/accounts$/);
    const after = await apiJson(`/v1/accounts/${NEW.appId}`);
    expect(after).toMatchObject({
      sendRatePerSecond: 200,
      pushMode: 'compatible',
      hasEncodingAESKey: true,
      webhook: true,
      policyName: 'custom',
      windowPolicy: { message: { count: 3, windowMs: 7_200_000 } },
    });
  });

  it('removing the key a compatible push mode needs is refused next to the key', async () => {
    const before = await apiJson(`/v1/accounts/${NEW.appId}`);
    await openEditor();
    await expectText(page().locator('[data-secret-state="encodingAESKey"]'), '已设置');
    await page().click('[data-clear="encodingAESKey"]');
    await expectText(page().locator('[data-secret-state="encodingAESKey"]'), '将被删除');
    await save();
    await expectText(
      fieldOf('encodingAESKey').locator('.field-error'),
      '兼容模式和安全模式需要消息加解密密钥(EncodingAESKey)',
    );
    expect(await apiJson(`/v1/accounts/${NEW.appId}`)).toEqual(before);
  });

  it('never renders a secret into the page', async () => {
    await openEditor();
    const html = (await page().content()) + (await page().evaluate<string>('document.body.innerText'));
    await page().click('[data-nav="accounts"]');
    await expectText(page().locator('#accounts'), NEW.appId);
    const list = await page().content();
    for (const secret of [NEW.secret, NEW.token, AES_KEY]) {
      expect(html).not.toContain(secret);
      expect(list).not.toContain(secret);
    }
  });

  it('"Check" shows WeChat’s answer in words: ok with the right AppSecret, 40125 with a wrong one', async () => {
    await page().click('[data-nav="accounts"]');
    await row().locator('[data-action="check"]').click();
    const answer = page().locator(`[data-check="${NEW.appId}"]`);
    await expectText(answer, '正常');
    await expectText(answer, '微信已签发 access_token');

    await openEditor();
    await page().fill('input[name="secret"]', WRONG_SECRET);
    await save();
    await page().waitForURL(/\/admin\/accounts$/);
    expect(await page().content()).not.toContain(WRONG_SECRET);
    await row().locator('[data-action="check"]').click();
    await expectText(answer, '异常');
    await expectText(answer, '微信拒绝了 AppSecret（40125');
    await world.browser.screenshot('account-check');
  });

  it('disables it after asking, and enables it again', async () => {
    await row().locator('[data-action="disable"]').click();
    await expectText(page().locator('dialog.confirm'), '已跳过（account_disabled）');
    await page().click('[data-test="confirm"]');
    await expectText(row().locator('[data-status]'), '已停用');
    expect(await apiJson(`/v1/accounts/${NEW.appId}`)).toMatchObject({ enabled: false, status: 'disabled' });
    await row().locator('[data-action="enable"]').click();
    await expectText(row().locator('[data-status]'), '正常');
    expect(await apiJson(`/v1/accounts/${NEW.appId}`)).toMatchObject({ enabled: true });
  });

  it('deletes it after a confirmation, and says how many pending messages that cancelled', async () => {
    const pending = await apiJson('/v1/messages', {
      method: 'POST',
      body: JSON.stringify({
        appId: NEW.appId,
        openid: 'o-e2e-account',
        delayMs: 3_600_000,
        message: { msgtype: 'text', text: { content: '一小时后见' } },
      }),
    });
    await row().locator('[data-action="delete"]').click();
    await expectText(page().locator('dialog.confirm'), '所有待发送消息');
    await page().click('[data-test="confirm"]');
    await expectText(page().locator('#notice'), `已删除 ${NEW.appId}：取消了 1 条待发送消息。`);
    // The notice shows before the list is drawn again without the account.
    await row().waitFor({ state: 'detached', timeout: 10_000 });
    expect(await row().count()).toBe(0);
    expect((await world.h.api(world.service, `/v1/accounts/${NEW.appId}`)).status).toBe(404);
    expect((await apiJson(`/v1/messages/${pending.id}`)).status).toBe('cancelled');
  });

  it('ran without script errors or Content-Security-Policy violations', () => {
    expect(world.browser.problems).toEqual([]);
  });
});
