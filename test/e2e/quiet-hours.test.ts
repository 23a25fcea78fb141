import type { SequenceResults, SequenceView } from '../../src/contract';
import { APP_ID, waitFor } from '../helpers/harness';
import { aTextMessage } from '../helpers/builders';
import { adminUrl, expectText, useSignedInBrowser } from './browser';

// The account's quiet hours 22:00–08:00 (Asia/Shanghai) are the default of its sequences. A user message
// opens a window of 48 h (the official policy), so a step moved to 08:00 still goes out then.
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'e2equiettoken', windowPolicy: 'official' };

jest.setTimeout(60_000);

const {
  started,
  browser: signedIn,
  apiJson,
  createSequence,
} = useSignedInBrowser({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) });
/** `POST /v1/sequences` of an active sequence of the account. */
const createActive = (definition: Record<string, unknown>): Promise<SequenceView> =>
  createSequence({ appId: APP_ID, status: 'active', ...definition });
/** A time of day in Asia/Shanghai, `fromNowMs` from now, as quiet hours take it. */
const shanghaiTime = (fromNowMs: number) =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Asia/Shanghai',
    hourCycle: 'h23',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).format(Date.now() + fromNowMs);
const step = (n: number) => signedIn().page.locator(`[data-test="quiet-steps"] li[data-step="${n}"]`);

describe('Quiet hours in the sequence editor', () => {
  it('shows where quiet hours move each step for a sample trigger time, and saves the sequence’s own', async () => {
    const browser = signedIn();
    const { page } = browser;
    // The account's default, set on the Accounts page (the end alone is refused, naming the field).
    await page.click('[data-nav="accounts"]');
    await page.locator(`tr[data-account="${APP_ID}"] [data-action="edit"]`).click();
    await page.waitForSelector('#account-form form');
    await page.fill('input[name="quietEnd"]', '08:00');
    await page.click('[data-test="save-account"]');
    await expectText(
      page.locator('#account-form .field[data-path="quietHours.start"] .field-error'),
      '格式不正确',
    );
    await page.fill('input[name="quietStart"]', '22:00');
    await browser.screenshot('quiet-account-form-zh-CN');
    await page.click('[data-test="save-account"]');
    await page.waitForURL(/\/admin\/accounts$/);
    expect((await apiJson(`/v1/accounts/${APP_ID}`)).quietHours).toEqual({ start: '22:00', end: '08:00' });
    const created = await createActive({
      name: '夜间课程提醒',
      trigger: { type: 'keyword', keyword: '课程' },
      steps: [
        { offsetMs: 0, message: aTextMessage('课程表已发送') },
        { offsetMs: 13 * 3_600_000, message: aTextMessage('今天中午开课') },
      ],
    });
    await page.goto(adminUrl(started.service, `sequences/${created.id}/edit`));

    // Inherited from the account; a trigger at 23:00 Beijing time moves step 1 to 08:00, step 2 is on time.
    await expectText(page.locator('[data-test="quiet-mode"] option[value="inherit"]'), '22:00–08:00');
    await expectText(page.locator('[data-test="quiet-preview"]'), '时区：北京时间');
    await page.fill('[data-test="quiet-sample"]', '2026-11-25T23:00');
    await expectText(step(1), '2026-11-25 23:00');
    await expectText(step(1), '静默时段 → 08:00 顺延');
    await expectText(step(2), '2026-11-26 12:00');
    await expectText(step(2), '按时发送');
    await browser.screenshot('quiet-editor-zh-CN');
    // The preview ran the API's own rules: the policy modules, served from dist/admin/policy/.
    const loaded = await page.evaluate<string[]>(
      `performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)`,
    );
    expect(loaded).toEqual(
      expect.arrayContaining(['/admin/policy/quiet-hours.js', '/admin/policy/window-rule.js']),
    );

    // On a follow (a 1-minute window) step 1 would be skipped without a fallback: marked, and warned of.
    await page.selectOption('select[name="trigger"]', 'subscribe');
    await expectText(step(1), '静默时段 → 跳过');
    await expectText(page.locator('[data-test="quiet-warnings"]'), '第 1 步没有备用消息');
    // Step 2, 13 hours after a follow, is outside its 1-minute window: not sent, as the window chart shows.
    await expectText(step(2), '不会发送（超出客服消息窗口，且无备用消息）');
    expect(await page.locator('.timeline .marker.refused').count()).toBe(1);
    await page.selectOption('select[name="trigger"]', 'keyword');

    // The sequence's own quiet hours, 12:00–13:00: now step 2 moves, to 13:00.
    await page.selectOption('[data-test="quiet-mode"]', 'own');
    await page.fill('[data-test="quiet-start"]', '12:00');
    await page.fill('[data-test="quiet-end"]', '13:00');
    await expectText(step(2), '静默时段 → 13:00 顺延');
    await expectText(step(1), '按时发送');
    await page.click('[data-test="save"]');
    await page.waitForURL(new RegExp(`/admin/sequences/${created.id}$`));
    const saved = (await apiJson(`/v1/sequences/${created.id}`)) as SequenceView;
    expect(saved.quietHours).toEqual({
      start: expect.stringMatching(/^12:00(:00)?$/),
      end: expect.stringMatching(/^13:00(:00)?$/),
    });

    await page.click('[data-lang="en"]');
    await page.goto(adminUrl(started.service, `sequences/${created.id}/edit`));
    await page.fill('[data-test="quiet-sample"]', '2026-11-25T23:00');
    await expectText(step(2), 'Quiet hours → moved to 13:00');
    await expectText(page.locator('[data-test="quiet-preview"]'), 'Time zone: Asia/Shanghai');
    await browser.screenshot('quiet-editor-en');

    // Off for this sequence, even though the account has a default.
    await page.selectOption('[data-test="quiet-mode"]', 'off');
    await expectText(page.locator('[data-test="quiet-preview"]'), 'No quiet hours apply to this sequence.');
    expect(browser.problems).toEqual([]);
  });

  it('the results page counts a step skipped for quiet hours, by its reason, in both languages', async () => {
    const browser = signedIn();
    const { page } = browser;
    // A welcome on a follow (a 1-minute window) in quiet hours that end in an hour, without a fallback.
    const created = await createActive({
      name: '深夜关注欢迎',
      trigger: { type: 'subscribe' },
      quietHours: { start: shanghaiTime(-3_600_000), end: shanghaiTime(3_600_000) },
      steps: [{ offsetMs: 0, message: aTextMessage('欢迎关注') }],
    });
    await started.h.simulator.push('follow', 'o-e2e-quiet', { appId: APP_ID });
    const skippedQuiet = async () =>
      ((await apiJson(`/v1/sequences/${created.id}/results`)) as SequenceResults).steps[0]?.skipped
        .quiet_hours === 1;
    expect(await waitFor(skippedQuiet, 10_000)).toBe(true);

    await page.goto(adminUrl(started.service, `sequences/${created.id}`));
    await expectText(
      page.locator('tr[data-step="1"] .reasons'),
      '1 in quiet hours, window closed by their end',
    );
    await browser.screenshot('quiet-results-en');
    await page.click('[data-lang="zh-CN"]');
    await expectText(page.locator('tr[data-step="1"] .reasons'), '1 静默时段内，届时窗口已关闭');
    await browser.screenshot('quiet-results-zh-CN');
    expect(browser.problems).toEqual([]);
  });
});
