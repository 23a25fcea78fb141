import type { SequenceResults, SequenceView } from '../../src/contract';
import { APP_ID, waitFor } from '../helpers/harness';
import { aTextMessage } from '../helpers/builders';
import { adminUrl, expectText, useSignedInBrowser } from './browser';

// API enrollments open no window: with no window policy their steps go out at once.
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'e2eabtoken', windowPolicy: 'none' };

jest.setTimeout(60_000);

const {
  started,
  browser: openBrowser,
  apiJson,
  createSequence,
} = useSignedInBrowser({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) });

describe('A/B steps in the admin page', () => {
  it('the editor turns a step into two variants; the results page shows a row per variant', async () => {
    const browser = openBrowser();
    const { page } = browser;
    const created = await createSequence({
      appId: APP_ID,
      name: '课程提醒 A/B',
      status: 'active',
      trigger: { type: 'api' },
      steps: [{ offsetMs: 0, message: aTextMessage('明天开课，记得准时参加') }],
    });
    await page.goto(adminUrl(started.service, `sequences/${created.id}/edit`));
    await page.click('.step[data-step="1"] [data-action="add-variant"]');
    const variantB = page.locator('.step[data-step="1"] .content-block').nth(1);
    await variantB.locator('textarea[name="content"]').fill('明天开课，点此查看课表');
    await variantB.locator('input[name="variant-weight"]').fill('3');
    await browser.screenshot('ab-editor-zh-CN');
    await page.click('[data-test="save"]');
    await page.waitForURL(new RegExp(`/admin/sequences/${created.id}$`));
    const saved = (await apiJson(`/v1/sequences/${created.id}`)) as SequenceView;
    expect(saved.steps[0]).toEqual({
      offsetMs: 0,
      variants: [
        { name: 'A', weight: 1, message: aTextMessage('明天开课，记得准时参加'), fallback: null },
        { name: 'B', weight: 3, message: aTextMessage('明天开课，点此查看课表'), fallback: null },
      ],
    });

    for (let i = 0; i < 20; i++) {
      await apiJson(`/v1/sequences/${created.id}/enrollments`, {
        method: 'POST',
        body: JSON.stringify({ openid: `o-e2e-ab-${i}` }),
      });
    }
    const sentPerVariant = async () =>
      ((await apiJson(`/v1/sequences/${created.id}/results`)) as SequenceResults).steps[0].variants ?? [];
    const allSent = async () => (await sentPerVariant()).reduce((n, v) => n + v.sent, 0) === 20;
    expect(await waitFor(allSent, 10_000)).toBe(true);
    const [a, b] = await sentPerVariant();
    await page.reload();
    await expectText(page.locator('tr.variant-row[data-variant="A"]'), `版本 A`);
    await expectText(page.locator('tr.variant-row[data-variant="B"]'), `${b.sent}`);
    await expectText(
      page.locator('tr.variant-row[data-variant="A"] [data-field="exited-after"]'),
      '此后退出 0 人',
    );
    expect(a.sent + b.sent).toBe(20);
    await browser.screenshot('ab-results-zh-CN');

    await page.click('[data-lang="en"]');
    await expectText(page.locator('tr.variant-row[data-variant="A"]'), 'Variant A');
    await browser.screenshot('ab-results-en');
    await page.goto(adminUrl(started.service, `sequences/${created.id}/edit`));
    await expectText(page.locator('.step[data-step="1"] .content-block').nth(1), 'Variant name');
    await browser.screenshot('ab-editor-en');
  });
});
