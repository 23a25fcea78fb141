import type { SequenceResults, SequenceView } from '../../src/contract';
import { APP_ID, waitFor } from '../helpers/harness';
import { aTextMessage } from '../helpers/builders';
import { adminUrl, expectText, useSignedInBrowser } from './browser';

// docs/sequences.md "The window's last chance", in the editor: a step's timing is "after the trigger" or
// "before the contact window closes"; the results page says how often it moved and whom it recovered.
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'e2elastchance', windowPolicy: 'official' };
const HOUR = 3_600_000;

jest.setTimeout(60_000);

const {
  started,
  browser: signedIn,
  apiJson,
  createSequence,
} = useSignedInBrowser({
  WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]),
});
const card = (n: number) => signedIn().page.locator(`article.step[data-step="${n}"]`);

describe('The window’s last chance in the admin page', () => {
  it('edits a step timed by the window’s end, in both languages, and keeps it on save', async () => {
    const browser = signedIn();
    const { page } = browser;
    const created = await createSequence({
      appId: APP_ID,
      status: 'active',
      name: '课程咨询跟进',
      trigger: { type: 'keyword', keyword: '课程' },
      steps: [
        { offsetMs: 0, message: aTextMessage('课程表已发送') },
        { beforeWindowCloseMs: 30 * 60_000, message: aTextMessage('优惠今晚截止，回复任意内容保留名额') },
      ],
    });
    await page.goto(adminUrl(started.service, `sequences/${created.id}/edit`));
    await page.waitForSelector('article.step[data-step="2"]');
    // Chinese by default: the step shows its lead, timed before the window closes.
    expect(await card(2).locator('select[name="timing"]').inputValue()).toBe('beforeClose');
    expect(await card(2).locator('input[name="offset"]').inputValue()).toBe('30');
    await expectText(card(2).locator('select[name="timing"] option[value="beforeClose"]'), '会话窗口关闭前');
    await browser.screenshot('last-chance-editor-zh-CN');

    // A lead as long as the 48-hour window is refused by the API, shown at the field.
    await card(2).locator('input[name="offset"]').fill('49');
    await card(2).locator('select[name="unit"]').selectOption('hours');
    await page.click('[data-test="save"]');
    await expectText(page.locator('[data-error-path="steps.1.beforeWindowCloseMs"]'), '早于窗口打开的时刻');
    expect(((await apiJson(`/v1/sequences/${created.id}`)) as SequenceView).version).toBe(created.version);

    // Two hours before it closes: saved as a last-chance step, offset 0.
    await card(2).locator('input[name="offset"]').fill('2');
    await page.click('[data-test="save"]');
    await page.waitForURL(new RegExp(`/admin/sequences/${created.id}$`));
    let saved = (await apiJson(`/v1/sequences/${created.id}`)) as SequenceView;
    expect(saved.steps[1]).toMatchObject({ offsetMs: 0, beforeWindowCloseMs: 2 * HOUR });

    // Switched back to a step after the trigger (English this time): the lead is gone.
    await page.click('[data-lang="en"]');
    await page.goto(adminUrl(started.service, `sequences/${created.id}/edit`));
    await page.waitForSelector('article.step[data-step="2"]');
    await expectText(card(2).locator('select[name="timing"] option[value="beforeClose"]'), 'window closes');
    await browser.screenshot('last-chance-editor-en');
    await card(2).locator('select[name="timing"]').selectOption('after');
    await page.click('[data-test="save"]');
    await page.waitForURL(new RegExp(`/admin/sequences/${created.id}$`));
    saved = (await apiJson(`/v1/sequences/${created.id}`)) as SequenceView;
    expect(saved.steps[1].offsetMs).toBe(2 * HOUR);
    expect(saved.steps[1]).not.toHaveProperty('beforeWindowCloseMs');
    expect(browser.problems).toEqual([]);
  });

  it('the results page names the step by its lead and counts its moves', async () => {
    const browser = signedIn();
    const { page } = browser;
    const created = await createSequence({
      appId: APP_ID,
      status: 'active',
      name: '窗口最后机会',
      trigger: { type: 'keyword', keyword: '报名' },
      steps: [
        { offsetMs: 0, message: aTextMessage('收到') },
        { beforeWindowCloseMs: HOUR, message: aTextMessage('名额即将释放') },
      ],
    });
    const openid = 'o-e2e-last-chance';
    await started.h.simulator.push('message', openid, { appId: APP_ID, content: '我要报名' });
    await started.h.simulator.push('message', openid, { appId: APP_ID, content: '几点开始？' });
    const moved = async () =>
      ((await apiJson(`/v1/sequences/${created.id}/results`)) as SequenceResults).steps[1]?.lastChance
        ?.moved === 1;
    expect(await waitFor(moved, 10_000)).toBe(true);

    await page.goto(adminUrl(started.service, `sequences/${created.id}`));
    await expectText(page.locator('tr[data-step="2"]'), 'before the window closes');
    await expectText(page.locator('tr[data-step="2"] [data-test="last-chance"]'), 'moved 1 time');
    await browser.screenshot('last-chance-results-en');
    await page.click('[data-lang="zh-CN"]');
    await expectText(page.locator('tr[data-step="2"]'), '会话窗口关闭前');
    await expectText(page.locator('tr[data-step="2"] [data-test="last-chance"]'), '因新互动顺延 1 次');
    await browser.screenshot('last-chance-results-zh-CN');
    expect(browser.problems).toEqual([]);
  });
});
