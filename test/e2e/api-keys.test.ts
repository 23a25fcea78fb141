import { ADMIN_TOKEN, APP_ID } from '../helpers/harness';
import { adminUrl, expectText, useSignedInBrowser } from './browser';

// The API keys page (接口密钥) in Chinese, then once in English: a key is made for one account and some
// operations, shown once to copy, works through the API as far as it was given, and is revoked from the page.
const SECOND = 'wxe2ekeys0000002';
const accounts = [APP_ID, SECOND].map((appId, i) => ({
  appId,
  secret: `secret-${i}`,
  token: `e2epushtoken${i}`,
  windowPolicy: 'official',
}));
const KEY_NAME = '课程提醒系统';

jest.setTimeout(120_000);

const { browser, started } = useSignedInBrowser({ WECHAT_ACCOUNTS: JSON.stringify(accounts) });
const page = () => browser().page;
const rowOf = (name: string) => page().locator('#keys tbody tr', { hasText: name });

/** A request to the API with `key` as the bearer token: its status. */
async function statusWith(key: string, path: string, body?: unknown): Promise<number> {
  const res = await fetch(`${started.service.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

const aMessage = (appId: string) => ({
  appId,
  openid: 'o-e2e-keys',
  delayMs: 3_600_000,
  message: { msgtype: 'text', text: { content: '一小时后见' } },
});

let key = '';

beforeAll(async () => {
  await page().click('[data-nav="keys"]');
  await page().waitForURL(/\/admin\/keys$/);
});

describe('the API keys page', () => {
  it('says there are none yet, and explains in Chinese what a refused form lacks', async () => {
    await expectText(page().locator('h1'), '接口密钥');
    await expectText(page().locator('#keys td.empty'), '还没有密钥。');
    await page().click('[data-action="create-key"]');
    await page().waitForSelector('.key-form .field-error');
    const paths = await page()
      .locator('.key-form .field-error')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-error-path')));
    expect(paths.sort()).toEqual(['accounts', 'name', 'operations']);
    for (const text of await page().locator('.key-form .field-error').allTextContents()) {
      expect(text).not.toMatch(/[A-Za-z]{3,}/);
    }
    await browser().screenshot('keys-refused');
  });

  it('makes a key for one account, shows it once to copy, and lists it by its last four characters', async () => {
    await page().fill('.key-form input[name="name"]', KEY_NAME);
    await page().check(`.key-form input[name="account"][value="${APP_ID}"]`);
    await page().check('.key-form input[name="operation"][value="schedule"]');
    await page().click('[data-action="create-key"]');
    const shown = page().locator('[data-created-key]');
    await shown.waitFor();
    key = await shown.inputValue();
    expect(key).toMatch(/^wdk_[A-Za-z0-9_-]{43}$/);
    await expectText(page().locator('.key-created'), '密钥只显示这一次');
    await browser().screenshot('keys-created');

    const row = rowOf(KEY_NAME);
    await row.waitFor();
    expect(await row.locator('td').allTextContents()).toEqual([
      KEY_NAME,
      `wdk_…${key.slice(-4)}`,
      APP_ID,
      '安排发送',
      expect.stringMatching(/北京时间/),
      '有效',
      '吊销',
    ]);
    await page().click('[data-action="key-saved"]');
    await page().locator('[data-created-key]').waitFor({ state: 'detached' });
    await page().reload();
    await rowOf(KEY_NAME).waitFor();
    expect(await page().content()).not.toContain(key);
  });

  it('works through the API as far as it was given', async () => {
    expect(await statusWith(key, '/v1/messages', aMessage(APP_ID))).toBe(201);
    expect(await statusWith(key, '/v1/messages', aMessage(SECOND))).toBe(400);
    expect(await statusWith(key, '/v1/accounts')).toBe(403);
  });

  it('does not sign in to the admin page, and says to use the admin token', async () => {
    await page().goto(adminUrl(started.service, 'sign-in'));
    await page().fill('input[name="token"]', key);
    await page().click('button[type="submit"]');
    await expectText(page().locator('p.error[role="alert"]'), '这是接口密钥');
    await browser().screenshot('keys-sign-in-refused');
    // Signed out by the visit to sign-in: the admin token signs in again.
    await page().fill('input[name="token"]', ADMIN_TOKEN);
    await page().click('button[type="submit"]');
    await page().waitForSelector('#sequences');
    await page().click('[data-nav="keys"]');
    await rowOf(KEY_NAME).waitFor();
  });

  it('revokes the key after asking, and the API refuses it from then on', async () => {
    await rowOf(KEY_NAME).locator('[data-action="revoke"]').click();
    await expectText(page().locator('dialog.confirm h2'), `吊销密钥“${KEY_NAME}”？`);
    await browser().screenshot('keys-revoke-dialog');
    await page().click('dialog.confirm [data-test="confirm"]');
    await expectText(rowOf(KEY_NAME).locator('td.status'), '吊销');
    expect(await rowOf(KEY_NAME).locator('[data-action="revoke"]').count()).toBe(0);
    expect(await statusWith(key, '/v1/messages', aMessage(APP_ID))).toBe(401);
    // The notice says so in Chinese; switched to English, the page does not keep a Chinese sentence.
    await expectText(page().locator('#notice'), `密钥“${KEY_NAME}”已吊销`);
    await page().click('[data-lang="en"]');
    await expectText(page().locator('h1'), 'API keys');
    expect(await page().locator('#notice').isHidden()).toBe(true);
    await page().click('[data-lang="zh-CN"]');
    await expectText(page().locator('h1'), '接口密钥');
  });

  it('shows the key in the audit log, made and revoked, in words', async () => {
    await page().click('[data-nav="audit"]');
    const created = page().locator('#audit tr[data-audit-action="key.created"]');
    await created.waitFor();
    expect((await created.locator('td').allTextContents()).slice(3)).toEqual([
      '创建了接口密钥',
      KEY_NAME,
      `公众号：${APP_ID}；权限：安排发送`,
    ]);
    await expectText(page().locator('#audit tr[data-audit-action="key.revoked"] td.what'), '吊销了接口密钥');
  });

  it('reads in English by the switch', async () => {
    await page().click('[data-lang="en"]');
    await page().click('[data-nav="keys"]');
    await expectText(page().locator('h1'), 'API keys');
    await expectText(rowOf(KEY_NAME).locator('td.status'), 'revoked');
    await expectText(rowOf(KEY_NAME).locator('td').nth(3), 'schedule');
    await browser().screenshot('keys-en');
    await page().click('[data-lang="zh-CN"]');
  });

  it('ran without script errors or Content-Security-Policy violations', () => {
    expect(browser().problems).toEqual([]);
  });
});
