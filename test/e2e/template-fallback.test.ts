import type { Locator } from 'playwright-core';
import { APP_ID } from '../helpers/harness';
import { expectText, useSignedInBrowser } from './browser';
import { editLateStep } from './late-step';

// The official window table: a follow allows 3 messages within 1 min, so a step at +2 min needs a fallback.
// The simulator's account holds its example templates (docs/simulator.md), TPL_COURSE_REMINDER among them.
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'e2etemplatetoken', windowPolicy: 'official' };

jest.setTimeout(60_000);

const {
  started,
  browser: openBrowser,
  createSequence,
} = useSignedInBrowser({
  WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]),
});

describe('a template fallback in the editor (docs/sequences.md "Template messages")', () => {
  it('warns beside the step of an unknown template id and a field over 20 characters; the preview shows what WeChat will', async () => {
    const browser = openBrowser();
    const { page } = browser;
    const { step } = await editLateStep(page, started.service, createSequence, '开课提醒 · 模板消息');
    await step.locator('input[name="template_id"]').fill('TPL_COURSE_REMINDR');
    await step.locator('.data-row input[name="key"]').fill('thing1');
    await step
      .locator('.data-row input[name="value"]')
      .fill('春季瑜伽🧘进阶课程将于明天上午九点在三楼教室开始');
    await step.locator('.fallback-body > button.secondary').click();
    await step.locator('.data-row input[name="key"]').nth(1).fill('first');
    await step.locator('.data-row input[name="value"]').nth(1).fill('您好');

    const warnings = step.locator('[data-test="step-warnings"]');
    await expectText(warnings, '模板库中没有模板 TPL_COURSE_REMINDR');
    await expectText(warnings, '模板字段最多 20 个字');
    await expectText(warnings, '微信已不再显示“first”字段');

    const card = page.locator('.phone [data-preview-step="2"] .template');
    const thing = card.locator('[data-field="thing1"]');
    await expectText(thing, '春季瑜伽进阶课程');
    expect(await thing.getAttribute('class')).toContain('broken');
    await expectText(thing.locator('.tpl-mark'), '微信拒收超过 20 字的字段');
    expect(await card.locator('[data-field="first"]').count()).toBe(0);
    expect(await thing.textContent()).not.toContain('🧘');
    await expectText(card.locator('.tpl-hidden'), '微信已不显示开头语、备注、颜色和表情');
    await browser.screenshot('template-fallback-warnings-zh-CN');

    // The right template id: its warning goes, the field's stays.
    await step.locator('input[name="template_id"]').fill('TPL_COURSE_REMINDER');
    await expectText(warnings, '最多 20 个字');
    await waitForNoText(warnings, '模板库中没有模板');
  });

  it('previews the template as WeChat shows it: its title and each field’s label from the account’s library, the key when the library lacks the id', async () => {
    const browser = openBrowser();
    const { page } = browser;
    const libraryReads: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (/\/v1\/accounts\/[^/]+\/templates/.test(request.url())) libraryReads.push(request.url());
    };
    page.on('request', onRequest);
    try {
      const { step } = await editLateStep(page, started.service, createSequence, '开课提醒 · 字段名称');
      await step.locator('input[name="template_id"]').pressSequentially('TPL_COURSE_REMINDER');
      await step.locator('.data-row input[name="key"]').fill('thing1');
      await step.locator('.data-row input[name="value"]').pressSequentially('春季瑜伽');

      const card = page.locator('.phone [data-preview-step="2"] .template');
      const thing = card.locator('[data-field="thing1"]');
      await expectText(thing, '课程名称');
      await expectText(thing, '春季瑜伽');
      await expectText(card.locator('.tpl-title'), '课程提醒');
      expect(await card.textContent()).not.toContain('thing1');
      await browser.screenshot('template-labels-zh-CN');

      // An id the library does not hold: the field as it is sent, by its key.
      await step.locator('input[name="template_id"]').fill('TPL_NOT_IN_LIBRARY');
      await expectText(thing, 'thing1');
      expect(await thing.textContent()).not.toContain('课程名称');
      expect(await card.locator('.tpl-title').count()).toBe(0);
      // The library was read once for the editor, not once per keystroke.
      expect(libraryReads).toHaveLength(1);
    } finally {
      page.off('request', onRequest);
    }
  });

  it('chooses the template from the account’s library: its id, and a row per field labelled as the template words it', async () => {
    const browser = openBrowser();
    const { page } = browser;
    const { step } = await editLateStep(page, started.service, createSequence, '开课提醒 · 从模板库选择');
    await step.locator('.data-row input[name="key"]').fill('time2');
    await step.locator('.data-row input[name="value"]').fill('明天 19:00');
    await step.locator('[data-action="pick-template"]').click();
    const pick = step.locator('select[name="template-pick"]');
    await expectText(pick, '课程提醒（TPL_COURSE_REMINDER）');
    await pick.selectOption('TPL_COURSE_REMINDER');
    expect(await step.locator('input[name="template_id"]').inputValue()).toBe('TPL_COURSE_REMINDER');
    const keys = step.locator('.data-row input[name="key"]');
    const values = step.locator('.data-row input[name="value"]');
    // The test compiler has no DOM types: an input seen as what it holds.
    expect(
      await keys.evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value)),
    ).toEqual(['thing1', 'time2']);
    expect(await values.nth(0).getAttribute('placeholder')).toBe('课程名称');
    // The value typed for time2 before choosing is kept.
    expect(await values.nth(1).inputValue()).toBe('明天 19:00');
    await expectText(step.locator('.template-content'), '开课时间：{{time2.DATA}}');
    await values.nth(0).fill('春季瑜伽');
    const card = page.locator('.phone [data-preview-step="2"] .template');
    await expectText(card.locator('[data-field="thing1"]'), '春季瑜伽');
    await browser.screenshot('template-picker-zh-CN');
    await page.click('[data-test="save"]');
    await page.waitForURL(/\/admin\/sequences\/[0-9a-f-]{36}$/);
  });
});

async function waitForNoText(locator: Locator, text: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (!((await locator.textContent()) ?? '').includes(text)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`"${text}" still shown after 10 s`);
}
