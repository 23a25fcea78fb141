import type { SequenceResults, SequenceView } from '../../src/contract';
import { aTemplateMessage, aTextMessage } from '../helpers/builders';
import { APP_ID, waitFor } from '../helpers/harness';
import { adminUrl, expectText, useSignedInBrowser } from './browser';

// docs/admin.md "Journeys": a marketer builds a two-branch journey with a goal in the editor, and the
// results page counts who took which path.
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'e2ejourney', windowPolicy: 'official' };
const DAY = 86_400_000;
const text = (content: string) => ({ msgtype: 'text', text: { content } });

jest.setTimeout(90_000);

const journeyService = useSignedInBrowser({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) });
const { started, browser: signedIn, apiJson, createSequence } = journeyService;

/** A journey two waits deep on each side: scan, menu-click and variable waits, a start after, a timeout that ends it. */
const DEEP_JOURNEY = {
  appId: APP_ID,
  name: '深层旅程',
  trigger: { type: 'subscribe', scene: 'spring' },
  steps: [{ offsetMs: 0, message: aTextMessage('欢迎') }],
  wait: {
    afterMs: 60_000,
    until: { type: 'scan', scene: 'shop' },
    timeoutMs: 2 * DAY,
    yes: 'scanned',
    no: 'away',
  },
  paths: {
    scanned: {
      steps: [{ offsetMs: 5000, message: aTextMessage('到店了') }],
      wait: { until: { type: 'click', key: 'BUY' }, timeoutMs: 3_600_000, yes: 'bought', no: null },
    },
    bought: {
      steps: [{ offsetMs: 0, message: aTextMessage('谢谢'), fallback: aTemplateMessage('谢谢') }],
    },
    away: {
      steps: [],
      wait: { until: { type: 'var', name: 'coupon' }, timeoutMs: 90_000, yes: 'couponed', no: 'last' },
    },
    couponed: { steps: [{ offsetMs: 0, message: aTextMessage('券已发') }] },
    last: {
      steps: [
        {
          beforeWindowCloseMs: 20_000,
          message: aTextMessage('最后机会'),
          fallback: aTemplateMessage('最后'),
        },
      ],
    },
  },
  goal: { until: { type: 'message', keyword: 'YES' }, periodMs: 36 * 3_600_000, exit: false },
};

/** What the editor round-trips: the definition without its bookkeeping. */
const definitionOf = (s: SequenceView) => ({
  name: s.name,
  trigger: s.trigger,
  steps: s.steps,
  wait: s.wait,
  paths: s.paths,
  goal: s.goal,
  exits: s.exits,
  oncePerFollower: s.oncePerFollower,
  quietHours: s.quietHours,
});

describe('The journey editor in the admin page', () => {
  let id = '';

  it('builds a two-branch journey with a goal in Chinese, naming bad input beside its field', async () => {
    const browser = signedIn();
    const { page } = browser;
    await page.goto(adminUrl(started.service, 'sequences/new'));
    await page.fill('input[name="name"]', '报名确认旅程');
    await page.selectOption('select[name="trigger"]', 'api');
    await page.locator('[data-path="steps.0"] textarea[name="content"]').fill('感谢报名！回复“是”确认名额。');

    await page.locator('.main-path > .wait-slot [data-action="add-wait"]').click();
    const wait = page.locator('.wait-card[data-path="wait"]');
    await expectText(wait.locator('h3'), '等待粉丝行动');
    await wait.locator('select[name="wait-type"]').selectOption('keyword');
    await wait.locator('input[name="wait-value"]').fill('是');
    await wait.locator('select[name="wait-no"]').selectOption('path');

    const yes = page.locator('.path-section.branch.yes');
    const no = page.locator('.path-section.branch.no');
    await expectText(yes.locator('.branch-label').first(), '是');
    await expectText(no.locator('.branch-label').first(), '否');
    await yes.locator('input[name="path-name"]').first().fill('confirmed');
    await yes.locator('textarea[name="content"]').first().fill('名额已确认，开课前一天提醒您。');
    await no.locator('input[name="path-name"]').first().fill('silent');
    await no.locator('textarea[name="content"]').first().fill('还在考虑吗？名额保留到今晚。');

    // A path name the API would refuse, and a wait without a timeout: each named beside its field.
    await yes.locator('input[name="path-name"]').first().fill('');
    await wait.locator('input[name="wait-timeout"]').fill('');
    await page.click('[data-test="save"]');
    await expectText(page.locator('[data-error-path="paths."]'), '分支名称须为 1–32 个字母、数字、_ 或 -');
    await expectText(wait.locator('[data-error-path="wait.timeoutMs"]'), '请填写最长等待时间');
    expect(await yes.locator('.path-head [data-error-path="paths."]').count()).toBe(1);
    await browser.screenshot('journey-editor-errors-zh-CN');
    await yes.locator('input[name="path-name"]').first().fill('confirmed');
    await wait.locator('input[name="wait-timeout"]').fill('3');
    await wait
      .locator('.offset-input:has(input[name="wait-timeout"]) select[name="unit"]')
      .selectOption('seconds');

    await page.click('[data-action="toggle-goal"]');
    await page.selectOption('select[name="goal-type"]', 'event');
    await page.fill('input[name="goal-value"]', 'purchased');
    await page.fill('input[name="goal-days"]', '7');
    await page.check('input[name="goal-exit"]');

    // The API's own refusals under the goal, a wait and a named path's step, each beside its field: an
    // event name with a space, a half-second timeout, a step 3 days into the reply's 2-day window.
    await page.fill('input[name="goal-value"]', 'bad name');
    await wait.locator('input[name="wait-timeout"]').fill('0.5');
    await yes.locator('[data-test="add-step"], [data-action="add-step"]').first().click();
    const late = page.locator('[data-path="paths.confirmed.steps.1"]');
    await late.locator('textarea[name="content"]').fill('三天后的提醒');
    await late.locator('input[name="offset"]').fill('3');
    await late.locator('select[name="unit"]').selectOption('days');
    await page.click('[data-test="save"]');
    await expectText(page.locator('.goal [data-error-path="goal.until.name"]'), '格式不正确');
    await expectText(wait.locator('[data-error-path="wait.timeoutMs"]'), '不能短于 1秒');
    // The window check runs on a definition the schema accepts: the late step is named once they are fixed.
    await wait.locator('input[name="wait-timeout"]').fill('3');
    await page.fill('input[name="goal-value"]', 'purchased');
    await page.click('[data-test="save"]');
    await expectText(late.locator('.field-error'), '超出客服消息窗口');
    // The aside said so before the API did: the reply's path has a step that cannot go out without a fallback.
    await expectText(page.locator('[data-path-tab="confirmed"]'), '无兜底 1');
    await browser.screenshot('journey-editor-api-errors-zh-CN');
    await late.locator('[data-action="remove-step"]').click();

    // The aside: one tab per path, each with its window and preview.
    await expectText(page.locator('[data-path-tab="main"]'), '主路径');
    // An API enrollment opens no window, nor does the timeout after it; the reply opens one.
    await expectText(page.locator('[data-path-tab="main"]'), '无已知窗口 · 1 步');
    await expectText(page.locator('[data-path-tab="silent"]'), '无已知窗口');
    await expectText(page.locator('[data-path-tab="confirmed"]'), '客服消息 1 · 需兜底 0');
    await page.click('[data-path-tab="confirmed"]');
    await expectText(page.locator('.window-panel h3'), '官方规则');
    await expectText(page.locator('.window-panel .window-label').first(), '粉丝发消息');
    await expectText(page.locator('.phone'), '名额已确认');
    await page.click('[data-path-tab="silent"]');
    await expectText(page.locator('.phone'), '还在考虑吗');
    await browser.screenshot('journey-editor-zh-CN');

    await page.click('button:has-text("保存并启用")');
    await page.waitForURL(/\/admin\/sequences\/[0-9a-f-]{36}$/);
    id = page.url().split('/').pop()!;
    const saved = (await apiJson(`/v1/sequences/${id}`)) as SequenceView;
    expect({ steps: saved.steps, wait: saved.wait, paths: saved.paths, goal: saved.goal }).toEqual({
      steps: [{ offsetMs: 0, message: text('感谢报名！回复“是”确认名额。'), fallback: null }],
      wait: { until: { type: 'message', keyword: '是' }, timeoutMs: 3000, yes: 'confirmed', no: 'silent' },
      paths: {
        confirmed: {
          steps: [{ offsetMs: 0, message: text('名额已确认，开课前一天提醒您。'), fallback: null }],
        },
        silent: { steps: [{ offsetMs: 0, message: text('还在考虑吗？名额保留到今晚。'), fallback: null }] },
      },
      goal: { until: { type: 'event', name: 'purchased' }, periodMs: 7 * DAY, exit: true },
    });
    expect(saved.status).toBe('active');
    expect(browser.problems).toEqual([]);
  });

  it('counts per path on the results page after one follower replies and one times out', async () => {
    const browser = signedIn();
    const { page } = browser;
    for (const openid of ['o-e2e-journey-yes', 'o-e2e-journey-no'])
      await apiJson(`/v1/sequences/${id}/enrollments`, { method: 'POST', body: JSON.stringify({ openid }) });
    await started.h.simulator.push('message', 'o-e2e-journey-yes', { appId: APP_ID, content: '是，我确认' });
    const entered = async () => {
      const { paths } = (await apiJson(`/v1/sequences/${id}/results`)) as SequenceResults;
      const of = (name: string) => paths.find((p) => p.path === name)?.entered;
      return of('main') === 2 && of('confirmed') === 1 && of('silent') === 1;
    };
    expect(await waitFor(entered, 20_000)).toBe(true);

    await page.goto(adminUrl(started.service, `sequences/${id}`));
    // Its steps are the main path's and both paths': three in all.
    await expectText(page.locator('[data-test="sequence-meta"]'), '共 3 步');
    const cells = (path: string) => page.locator(`tr[data-path="1:${path}"] td`);
    await expectText(cells('main').nth(1), '主路径');
    await expectText(cells('main').nth(2), '2');
    await expectText(cells('confirmed').nth(2), '1');
    await expectText(cells('silent').nth(2), '1');
    // The main path's wait: one yes, one no.
    await expectText(cells('main').nth(6), '1');
    await expectText(cells('main').nth(7), '1');
    await browser.screenshot('journey-results-zh-CN');
    expect(browser.problems).toEqual([]);
  });

  it('saves the journey again unchanged from the editor (a new version, the same structure)', async () => {
    const browser = signedIn();
    const { page } = browser;
    const before = (await apiJson(`/v1/sequences/${id}`)) as SequenceView;
    await page.goto(adminUrl(started.service, `sequences/${id}/edit`));
    await page.waitForSelector('.path-section.branch.no');
    expect(await page.locator('.path-section.branch.yes input[name="path-name"]').inputValue()).toBe(
      'confirmed',
    );
    await page.click('[data-test="save"]');
    await page.waitForURL(new RegExp(`/admin/sequences/${id}$`));
    const after = (await apiJson(`/v1/sequences/${id}`)) as SequenceView;
    expect(after.version).toBe(before.version + 1);
    expect(definitionOf(after)).toEqual(definitionOf(before));
    expect(browser.problems).toEqual([]);
  });

  it('round-trips a deeper journey made through the API: every condition kind, a start after, fallbacks, a last-chance step', async () => {
    const created = await createSequence(DEEP_JOURNEY);
    const browser = signedIn();
    const page = browser.page;
    expect(created).toHaveProperty('id');
    await page.goto(adminUrl(started.service, `sequences/${created.id}/edit`));
    await page.waitForSelector('.path-section.branch.no .path-section.branch.yes');
    expect(await page.locator('.wait-card').count()).toBe(3);
    expect(await page.locator('[data-path-tab]').count()).toBe(6);
    await browser.screenshot('journey-editor-deep-zh-CN');
    await page.click('[data-test="save"]');
    await page.waitForURL(new RegExp(`/admin/sequences/${created.id}$`));
    const after = (await apiJson(`/v1/sequences/${created.id}`)) as SequenceView;
    expect(after.version).toBe(created.version + 1);
    expect(definitionOf(after)).toEqual(definitionOf(created));
    expect(browser.problems).toEqual([]);
  });

  it('in English: shows the journey in English, and a straight sequence stays straight', async () => {
    const browser = signedIn();
    const { page } = browser;
    await page.click('[data-lang="en"]');
    await page.goto(adminUrl(started.service, `sequences/${id}/edit`));
    const english = [
      ['.wait-card h3', 'Wait for the follower'],
      ['.path-section.branch.yes .branch-label', 'Yes'],
      ['.goal h2', 'Goal'],
      ['[data-path-tab="confirmed"]', 'as messages'],
    ];
    for (const [selector, words] of english) await expectText(page.locator(selector), words);
    await browser.screenshot('journey-editor-en');

    await page.goto(adminUrl(started.service, 'sequences/new'));
    await page.fill('input[name="name"]', 'Straight welcome');
    await page.selectOption('select[name="trigger"]', 'api');
    await page.locator('[data-path="steps.0"] textarea[name="content"]').fill('Welcome!');
    expect(await page.locator('[data-path-tab]').count()).toBe(0);
    await page.click('[data-test="save"]');
    await page.waitForURL(/\/admin\/sequences\/[0-9a-f-]{36}$/);
    const straight = (await apiJson(`/v1/sequences/${page.url().split('/').pop()!}`)) as SequenceView;
    expect({ wait: straight.wait, paths: straight.paths, goal: straight.goal }).toEqual({
      wait: null,
      paths: {},
      goal: null,
    });
    await page.click('[data-lang="zh-CN"]');
    expect(browser.problems).toEqual([]);
  });
});
