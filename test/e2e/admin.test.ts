import type { Page } from 'playwright-core';
import type { Service } from '../../src/main/start-service';
import { ADMIN_TOKEN, APP_ID, createHarness, type Harness } from '../helpers/harness';
import { adminUrl, apiJsonOf, expectText, launchBrowser, type TestBrowser } from './browser';

// The official window table: a follow allows 3 messages within 1 min. The push token lets the simulator
// act as a follower through the webhook.
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'e2epushtoken', windowPolicy: 'official' };
const FOLLOWER = 'o-e2e-follower';
const NAME = '新关注欢迎 · spring welcome';

jest.setTimeout(60_000);

let h: Harness;
let service: Service;
let browser: TestBrowser;
let page: Page;
let sequenceId = '';

beforeAll(async () => {
  h = await createHarness({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) }, { enforceContactWindow: true });
  service = await h.start();
  const served = await fetch(`${service.url}/admin/`);
  if (served.status !== 200) {
    throw new Error(
      `GET /admin/ answered ${served.status}: mount the app with app.use('/admin', createAdminRouter()) in src/http/create-app.ts`,
    );
  }
  browser = await launchBrowser();
  page = browser.page;
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

const url = (path: string) => adminUrl(service, path);
const apiJson = (path: string, init?: RequestInit) => apiJsonOf(h, service, path, init);
const stepCard = (n: number) => page.locator(`.step[data-step="${n}"]`);

/** Fills step n of the editor: its offset, and a text message (the default type). */
async function fillTextStep(n: number, offset: string, unit: string, text: string): Promise<void> {
  const step = stepCard(n);
  await step.locator('input[name="offset"]').fill(offset);
  await step.locator('select[name="unit"]').selectOption(unit);
  await step.locator('textarea[name="content"]').fill(text);
}

describe('the admin web app', () => {
  it('sends a visitor without a token to sign-in, refuses a wrong token and keeps the right one out of URLs', async () => {
    await page.goto(url(''));
    await page.waitForURL(/\/admin\/sign-in/);
    await page.fill('input[name="token"]', 'not-the-token');
    await page.click('button[type="submit"]');
    await expectText(page.locator('.sign-in .error'), '令牌不正确，未通过验证。');
    await page.fill('input[name="token"]', ADMIN_TOKEN);
    await browser.screenshot('sign-in');
    await page.click('button[type="submit"]');
    await page.waitForSelector('#sequences');
    await expectText(page.locator('#sequences'), '还没有跟进序列');
    expect(page.url()).not.toContain(ADMIN_TOKEN);
    expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([ADMIN_TOKEN]);
  });

  it('creates a sequence of three steps and two exit conditions; a fourth step at +2 h and a repeated exit are refused on save', async () => {
    await page.click('[data-action="new-sequence"]');
    await page.fill('input[name="name"]', NAME);
    await fillTextStep(1, '1', 'seconds', '欢迎关注！点此 <a href="https://example.com/course">查看课程</a>');
    await page.click('[data-test="add-step"]');
    await stepCard(2).locator('select[name="msgtype"]').selectOption('news');
    await stepCard(2).locator('input[name="offset"]').fill('40');
    await stepCard(2).locator('input[name="articles.0.title"]').fill('春季课程表');
    await stepCard(2).locator('input[name="articles.0.description"]').fill('四月开课，名额有限');
    await stepCard(2).locator('input[name="articles.0.url"]').fill('https://example.com/spring');
    await page.click('[data-test="add-step"]');
    await stepCard(3).locator('select[name="msgtype"]').selectOption('msgmenu');
    await stepCard(3).locator('input[name="offset"]').fill('50');
    await stepCard(3).locator('input[name="head_content"]').fill('您想了解哪门课？');
    await stepCard(3).locator('.menu-item input[name="content"]').first().fill('周末班');
    await expectText(page.locator('.window-panel'), '所有步骤都在窗口内。');

    await page.click('[data-test="add-step"]');
    await fillTextStep(4, '2', 'hours', '两小时后的提醒');
    const warnings = page.locator('[data-test="window-warnings"]');
    await expectText(warnings, '第 4 步（+2小时）超出客服消息窗口（关注后1分钟内最多可发 3 条）');
    expect(await page.locator('.timeline .marker.refused').count()).toBe(1);
    expect(await page.locator('.timeline .marker.inside').count()).toBe(3);
    await browser.screenshot('editor-outside-window');

    await page.click('[data-test="save"]');
    const inline = stepCard(4).locator('.field-error');
    await expectText(
      inline,
      '超出客服消息窗口（关注后1分钟内最多可发 3 条）：请提前发送，或添加模板消息作为备用',
    );
    await expectText(page.locator('.save-summary'), '未保存：有 1 处问题');
    await browser.screenshot('editor-error');
    const listed = await apiJson('/v1/sequences');
    expect(listed.sequences).toEqual([]);

    await stepCard(4).locator('[data-action="remove-step"]').click();
    await expectText(page.locator('.window-panel'), '所有步骤都在窗口内。');
    // Two exit conditions that are the same one: refused on save, next to the second.
    for (const keyword of ['STOP', 'stop']) {
      await page.click('[data-test="add-exit"]');
      await page.locator('.exit-row input[name="exit-param"]').last().fill(keyword);
    }
    await page.click('[data-test="save"]');
    await expectText(page.locator('.exit-row[data-path="exits.1"] .field-error'), '与第 1 项重复');
    await browser.screenshot('editor-exits');
    await page.locator('.exit-row[data-path="exits.1"] button.danger').click();
    await page.click('[data-test="add-exit"]');
    await page.locator('.exit-row select[name="exit-type"]').last().selectOption('click');
    await page.locator('.exit-row input[name="exit-param"]').last().fill('UNSUB');
    await page.click('[data-test="save"]');
    await page.waitForURL(/\/admin\/sequences\/[0-9a-f-]{36}$/);
    sequenceId = page.url().split('/').pop()!;
    await expectText(page.locator('h1 .badge'), '草稿');
    const saved = await apiJson(`/v1/sequences/${sequenceId}`);
    expect(saved.steps.map((s: { offsetMs: number }) => s.offsetMs)).toEqual([1000, 40_000, 50_000]);
    expect(saved.steps[0].message.text.content).toContain(
      '<a href="https://example.com/course">查看课程</a>',
    );
    expect(saved.exits).toEqual([
      { type: 'message', keyword: 'STOP' },
      { type: 'click', key: 'UNSUB' },
    ]);
    expect(saved.steps[2].message).toEqual({
      msgtype: 'msgmenu',
      msgmenu: { head_content: '您想了解哪门课？', list: [{ id: '101', content: '周末班' }] },
    });
  });

  it('activates it, and a simulated follow moves the live counts on the list', async () => {
    await page.click('[data-action="activate"]');
    await page.click('[data-test="confirm"]');
    await expectText(page.locator('h1 .badge'), '进行中');
    await page.click('[data-nav="sequences"]');
    const row = page.locator(`tr[data-sequence="${sequenceId}"]`);
    await expectText(row.locator('[data-count="enrolled"]'), '0');

    await h.simulator.push('follow', FOLLOWER, { appId: APP_ID });
    await expectText(row.locator('[data-count="sent"]'), '1', 15_000);
    await expectText(row.locator('[data-count="pending"]'), '2');
    await expectText(row.locator('[data-count="enrolled"]'), '1');
    expect(h.simulator.messages({ appId: APP_ID, openid: FOLLOWER })).toHaveLength(1);
    await browser.screenshot('sequences');
  });

  it('shows per-step results and a chart', async () => {
    await page.locator('#sequences a', { hasText: NAME }).click();
    await expectText(page.locator('[data-tile="sent"] strong'), '1');
    await expectText(page.locator('[data-tile="exited"] strong'), '0');
    await expectText(page.locator('#exits'), '提前退出条件：发送含“STOP”的消息 · 点击菜单“UNSUB”');
    await expectText(page.locator('#step-results tr[data-step="1"]'), '文本');
    await page.waitForSelector('.chart svg .bar');
    await browser.screenshot('sequence-results');
  });

  it('pausing asks first, naming how many pending messages it cancels', async () => {
    await page.click('[data-nav="sequences"]');
    await page.locator(`tr[data-sequence="${sequenceId}"] [data-action="pause"]`).click();
    const dialog = page.locator('dialog.confirm');
    await expectText(dialog, '这将取消已为粉丝排定的 2 条待发送消息。');
    await browser.screenshot('pause-confirm');
    await dialog.locator('[data-test="confirm"]').click();
    await expectText(page.locator('#notice'), '已取消 2 条待发送消息');
    await expectText(page.locator(`tr[data-sequence="${sequenceId}"] .badge`), '已暂停');
    const after = await apiJson(`/v1/sequences/${sequenceId}`);
    expect(after).toMatchObject({ status: 'paused', pendingSteps: 0 });
  });

  it('sends a step now to an openid from the test-send page', async () => {
    await page.click('[data-nav="test-send"]');
    await page.selectOption('select[name="sequence"]', sequenceId);
    await page.selectOption('select[name="step"]', '1');
    await page.fill('input[name="openid"]', FOLLOWER);
    await page.click('[data-action="send"]');
    await expectText(page.locator('.test-result .badge'), '已发送', 15_000);
    const received = h.simulator.messages({ appId: APP_ID, openid: FOLLOWER });
    expect(received.map((m) => (m.body as { msgtype: string }).msgtype)).toEqual(['text', 'news']);
    await browser.screenshot('test-send');
  });

  it('looks up the follower: window, enrollment, every message; cancels one', async () => {
    const later = await apiJson('/v1/messages', {
      method: 'POST',
      body: JSON.stringify({
        appId: APP_ID,
        openid: FOLLOWER,
        delayMs: 3_600_000,
        message: { msgtype: 'text', text: { content: '一小时后见' } },
      }),
    });
    await page.click('[data-nav="followers"]');
    await page.fill('input[name="openid"]', FOLLOWER);
    await page.click('[data-action="look-up"]');
    await expectText(page.locator('[data-tile="subscription"]'), '已关注');
    await expectText(page.locator('[data-tile="window"]'), '因关注开启');
    await expectText(page.locator('.follower'), NAME);
    expect(await page.locator('.follower .badge.msg-sent').count()).toBe(2);
    await browser.screenshot('follower');

    await page.locator('tr', { hasText: '一小时后见' }).locator('[data-test="cancel-message"]').click();
    await expectText(page.locator('#notice'), '消息已取消发送。');
    const cancelled = await apiJson(`/v1/messages/${later.id}`);
    expect(cancelled.status).toBe('cancelled');
  });

  it('a 401 (the token rotated) sends the user back to sign-in', async () => {
    await page.evaluate("sessionStorage.setItem('wechat-drip.admin-token', 'rotated-away')");
    await page.goto(url('sequences'));
    await page.waitForURL(/\/admin\/sign-in\?next=sequences/);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
  });

  it('ran without script errors or Content-Security-Policy violations', () => {
    expect(browser.problems).toEqual([]);
  });
});
