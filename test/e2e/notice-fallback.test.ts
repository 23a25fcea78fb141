import type { SequenceView } from '../../src/contract';
import { aTextMessage } from '../helpers/builders';
import { APP_ID } from '../helpers/harness';
import { adminUrl, expectText, useSignedInBrowser } from './browser';
import { editLateStep } from './late-step';

// The official window table: a follow allows 3 messages within 1 min, so a step at +2 min needs a fallback.
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'e2enoticetoken', windowPolicy: 'official' };

jest.setTimeout(60_000);

const {
  started,
  browser: openBrowser,
  apiJson,
  createSequence,
} = useSignedInBrowser({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) });

describe('a subscription-notice fallback in the editor', () => {
  it('a step outside the window gets a 订阅通知 fallback, shown in the preview, saved and shown again', async () => {
    const browser = openBrowser();
    const { page } = browser;
    const { created, step } = await editLateStep(
      page,
      started.service,
      createSequence,
      '开课提醒 · 订阅通知',
    );
    await step.locator('select[name="fallback-channel"]').selectOption('notice');
    await expectText(step.locator('.fallback .hint'), '仅发给在订阅弹窗中同意过此模板的粉丝');
    await step.locator('input[name="template_id"]').fill('TPL_COURSE_START');
    await step.locator('.data-row input[name="key"]').fill('thing1');
    await step.locator('.data-row input[name="value"]').fill('课程即将开始');
    await step.locator('input[name="url"]').fill('https://example.com/course');
    await expectText(page.locator('.phone'), '改发订阅通知');
    await browser.screenshot('notice-fallback-editor-zh-CN');
    await page.click('[data-test="save"]');
    await page.waitForURL(new RegExp(`/admin/sequences/${created.id}$`));

    const saved = (await apiJson(`/v1/sequences/${created.id}`)) as SequenceView;
    expect(saved.steps[1]).toEqual({
      offsetMs: 120_000,
      message: aTextMessage('课程明天开始'),
      fallback: {
        channel: 'notice',
        template_id: 'TPL_COURSE_START',
        page: 'https://example.com/course',
        data: { thing1: { value: '课程即将开始' } },
      },
    });

    // Opened again, in English, the form shows the notice as it was saved.
    await page.click('[data-lang="en"]');
    await page.goto(adminUrl(started.service, `sequences/${created.id}/edit`));
    const again = page.locator('.step[data-step="2"]');
    expect(await again.locator('select[name="fallback-channel"]').inputValue()).toBe('notice');
    expect(await again.locator('input[name="url"]').inputValue()).toBe('https://example.com/course');
    await expectText(again.locator('.fallback .hint'), 'Goes only to a follower who accepted this template');
    await expectText(page.locator('.phone'), 'as subscription notice');
    await browser.screenshot('notice-fallback-editor-en');
  });
});
