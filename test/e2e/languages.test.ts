import type { Page } from 'playwright-core';
import type { Service } from '../../src/main/start-service';
import { ADMIN_TOKEN, APP_ID, createHarness, type Harness } from '../helpers/harness';
import { foreignWords } from '../helpers/language-scan';
import { adminUrl, expectText, launchBrowser, type TestBrowser } from './browser';

// Marketing's own content is Chinese in both languages: the scan leaves these values out.
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'e2epushtoken', windowPolicy: 'official' };
const ACCOUNT_NAME = '春季课程公众号';
const SEQUENCE_NAME = '春季课程欢迎';
const WELCOME = '欢迎关注！点此查看课程';
const FOLLOWER = 'o-e2e-languages';
const CONTENT = [ACCOUNT_NAME, SEQUENCE_NAME, WELCOME];
/** The account's zone, not the browser's (Asia/Shanghai) nor the default. */
const ZONE = 'Europe/Berlin';
const ZONED_TIME = /\d{4}-\d\d-\d\d \d\d:\d\d \(Europe\/Berlin\)/;

jest.setTimeout(90_000);

let h: Harness;
let service: Service;
let sequenceId = '';

beforeAll(async () => {
  h = await createHarness({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) });
  service = await h.start();
  const api = (path: string, method: string, body: unknown) =>
    h.api(service, path, { method, body: JSON.stringify(body) });
  expect((await api(`/v1/accounts/${APP_ID}`, 'PATCH', { name: ACCOUNT_NAME, timeZone: ZONE })).status).toBe(
    200,
  );
  const created = await api('/v1/sequences', 'POST', {
    appId: APP_ID,
    name: SEQUENCE_NAME,
    trigger: { type: 'subscribe' },
    steps: [{ offsetMs: 0, message: { msgtype: 'text', text: { content: WELCOME } } }],
    status: 'active',
  });
  expect(created.status).toBe(201);
  sequenceId = ((await created.json()) as { id: string }).id;
  await h.simulator.push('follow', FOLLOWER, { appId: APP_ID });
});
afterAll(() => h?.close());

/**
 * The page's words: its rendered text (not inside code, where API codes and JSON are shown as they are),
 * its options and SVG text, the labels, placeholders and titles of its elements, and its title. A string,
 * run in the page (the test's own compiler has no DOM types).
 */
const PAGE_TEXTS = `(() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest('code, pre, textarea, script, style, [hidden]')) continue;
    if (parent.closest('svg, option') || parent.checkVisibility()) out.push(node.textContent);
  }
  for (const el of document.querySelectorAll('[title], [placeholder], [aria-label]')) {
    for (const name of ['title', 'placeholder', 'aria-label']) out.push(el.getAttribute(name) ?? '');
  }
  out.push(document.title);
  return out;
})()`;

/** The words of the other language on the page, marketing's own content taken out. */
async function foreignOnPage(page: Page, language: 'zh-CN' | 'en'): Promise<string[]> {
  const text = (await page.evaluate<string[]>(PAGE_TEXTS)).join('\n').split('\n');
  return foreignWords(
    text.map((line) => CONTENT.reduce((rest, value) => rest.split(value).join(' '), line)).join('\n'),
    language,
  );
}

describe.each(['zh-CN', 'en'] as const)('the admin page in %s', (language) => {
  let browser: TestBrowser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchBrowser();
    page = browser.page;
  });
  afterAll(() => browser?.close());

  /** Checks the page for the other language's words and saves its screenshot. */
  async function review(name: string): Promise<void> {
    expect(await foreignOnPage(page, language)).toEqual([]);
    await browser.screenshot(`lang-${language}-${name}`);
  }

  it('signs in; English is chosen by the switch, remembered across a reload, and sets <html lang>', async () => {
    await page.goto(adminUrl(service, 'sign-in'));
    await page.waitForSelector('input[name="token"]');
    expect(await page.evaluate('document.documentElement.lang')).toBe('zh-CN');
    if (language === 'en') {
      await page.click('[data-lang="en"]');
      await expectText(page.locator('.sign-in h1'), 'Sign in');
      await page.reload();
      await page.waitForSelector('input[name="token"]');
    }
    expect(await page.evaluate('document.documentElement.lang')).toBe(language);
    expect(await page.locator(`[data-lang="${language}"]`).getAttribute('aria-pressed')).toBe('true');
    await review('sign-in');
    await page.fill('input[name="token"]', ADMIN_TOKEN);
    await page.click('button[type="submit"]');
    await page.waitForSelector(`tr[data-sequence="${sequenceId}"]`);
  });

  it('lists the sequences, each time in its account’s zone with the zone shown', async () => {
    const row = page.locator(`tr[data-sequence="${sequenceId}"]`);
    await expectText(row.locator('[data-count="sent"]'), '1', 15_000);
    expect(await row.textContent()).toMatch(ZONED_TIME);
    await review('sequences');
  });

  it('asks for the copy’s name in a dialog', async () => {
    await page.locator(`tr[data-sequence="${sequenceId}"] [data-action="duplicate"]`).click();
    await page.waitForSelector('dialog.confirm');
    await review('copy-dialog');
    await page.locator('dialog.confirm button.secondary').click();
    await page.waitForSelector('dialog.confirm', { state: 'detached' });
  });

  it('shows the results of a sequence', async () => {
    await page.goto(adminUrl(service, `sequences/${sequenceId}`));
    await page.waitForSelector('tr[data-step="1"]');
    await review('results');
  });

  it('opens the editor', async () => {
    await page.goto(adminUrl(service, `sequences/${sequenceId}/edit`));
    await page.waitForSelector('.window-panel');
    await page.waitForSelector('.phone .bubble');
    await review('editor');
  });

  it('shows the API’s refusal of a save beside its field, in the page’s language', async () => {
    const step = page.locator('.step[data-step="1"]');
    await step.locator('input[name="offset"]').fill('2');
    await step.locator('select[name="unit"]').selectOption('hours');
    await page.click('[data-test="save"]');
    await page.waitForSelector('.step[data-step="1"] .field-error');
    expect(await step.locator('.field-error').textContent()).toMatch(
      language === 'en' ? /falls outside the contact window/ : /超出客服消息窗口/,
    );
    await review('editor-refused');
  });

  it('lists the accounts', async () => {
    await page.click('[data-nav="accounts"]');
    await page.waitForSelector(`tr[data-account="${APP_ID}"]`);
    // The check's answer is WeChat's errcode in words (the simulator issues a token: errcode 0).
    await page.locator(`tr[data-account="${APP_ID}"] [data-action="check"]`).click();
    await page.waitForSelector(`[data-check="${APP_ID}"]`);
    expect(await page.locator(`[data-check="${APP_ID}"]`).textContent()).toMatch(
      language === 'en' ? /WeChat issued an access token/ : /微信已签发 access_token/,
    );
    await review('accounts');
  });

  it('refuses a bad account setting beside its field', async () => {
    await page.locator(`tr[data-account="${APP_ID}"] [data-action="edit"]`).click();
    await page.waitForSelector('#account-form form');
    await page.fill('input[name="sendRatePerSecond"]', '0');
    await page.click('[data-test="save-account"]');
    await page.waitForSelector('#account-form .field[data-path="sendRatePerSecond"] .field-error');
    await review('account-form-refused');
    await page.click('[data-nav="accounts"]');
    await page.waitForSelector(`tr[data-account="${APP_ID}"]`);
  });

  it('looks up a follower, the times in the account’s zone', async () => {
    await page.click('[data-nav="followers"]');
    await page.fill('input[name="openid"]', FOLLOWER);
    await page.click('[data-action="look-up"]');
    await page.waitForSelector('.follower .badge.msg-sent');
    expect(await page.locator('.follower').textContent()).toMatch(ZONED_TIME);
    await review('follower');
  });

  it('a word missing from the catalog is a script error that names it', async () => {
    // A string, not a function: the test's compiler would turn a function's import() into require().
    const error = await page.evaluate<string>(
      "import('/admin/i18n/index.js').then((i18n) => String(i18n.t().sequences.noSuchWord)).catch((err) => err.message)",
    );
    expect(error).toBe(`the ${language}.sequences catalog has no key "noSuchWord"`);
  });

  it('ran without script errors or Content-Security-Policy violations', () => {
    expect(browser.problems).toEqual([]);
  });
});
