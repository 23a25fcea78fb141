import type { Page } from 'playwright-core';
import type { Service } from '../../src/main/start-service';
import { anAppId } from '../helpers/builders';
import { ADMIN_TOKEN, APP_ID, createHarness, type Harness } from '../helpers/harness';
import { foreignWords } from '../helpers/language-scan';
import { aPlatform } from '../helpers/platform';
import { adminUrl, expectText, launchBrowser, type TestBrowser } from './browser';

// Marketing's own content is Chinese in both languages: the scan leaves these values out.
const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'e2epushtoken', windowPolicy: 'official' };
const ACCOUNT_NAME = '春季课程公众号';
const SEQUENCE_NAME = '春季课程欢迎';
const WELCOME = '欢迎关注！点此查看课程';
const FOLLOWER = 'o-e2e-languages';
/** Never wrote to the account: a test send to it finds the contact window closed. */
const STRANGER = 'o-e2e-languages-stranger';
const DRAFT_NAME = '秋季课程草稿';
const KEY_NAME = '课程提醒系统';
const JOURNEY_NAME = '报名确认旅程';
const JOURNEY_TEXTS = ['回复“是”确认名额', '名额已确认', '名额保留到今晚'];
// A path's name is marketing's too (letters, digits, _ or -, so Latin on both pages).
const PATHS = { yes: 'confirmed', no: 'silent' };
const CONTENT = [
  ACCOUNT_NAME,
  SEQUENCE_NAME,
  WELCOME,
  DRAFT_NAME,
  KEY_NAME,
  JOURNEY_NAME,
  ...JOURNEY_TEXTS,
  PATHS.yes,
  PATHS.no,
];
/** The account's zone, not the browser's (Asia/Shanghai) nor the default. */
const ZONE = 'Europe/Berlin';
const ZONED_TIME = /\d{4}-\d\d-\d\d \d\d:\d\d \(Europe\/Berlin\)/;

// The service is also a third-party platform (the simulator plays its Open Platform), so that the Accounts
// page offers "Connect an official account" and its panel, link and notices render.
const PLATFORM = aPlatform();

jest.setTimeout(90_000);

let h: Harness;
let service: Service;
let sequenceId = '';
let draftId = '';
let journeyId = '';

const text = (content: string) => ({ msgtype: 'text', text: { content } });

beforeAll(async () => {
  h = await createHarness(
    { WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]), ...PLATFORM.env },
    { simulatorComponent: PLATFORM },
  );
  service = await h.start({
    WECHAT_COMPONENT_LOGIN_PAGE_URL: `${h.simulatorUrl}/cgi-bin/componentloginpage`,
  });
  expect((await h.simulator.openPlatform!.pushTicket()).body).toBe('success');
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
  const draft = await api('/v1/sequences', 'POST', {
    appId: APP_ID,
    name: DRAFT_NAME,
    trigger: { type: 'subscribe' },
    steps: [{ offsetMs: 0, message: text(WELCOME) }],
  });
  expect(draft.status).toBe(201);
  draftId = ((await draft.json()) as { id: string }).id;
  const journey = await api('/v1/sequences', 'POST', {
    appId: APP_ID,
    name: JOURNEY_NAME,
    trigger: { type: 'api' },
    steps: [{ offsetMs: 0, message: text(JOURNEY_TEXTS[0]) }],
    wait: { until: { type: 'message' }, timeoutMs: 86_400_000, yes: PATHS.yes, no: PATHS.no },
    paths: {
      [PATHS.yes]: { steps: [{ offsetMs: 0, message: text(JOURNEY_TEXTS[1]) }] },
      [PATHS.no]: { steps: [{ offsetMs: 0, message: text(JOURNEY_TEXTS[2]) }] },
    },
    goal: { until: { type: 'event', name: 'purchased' }, periodMs: 7 * 86_400_000, exit: true },
    status: 'active',
  });
  expect(journey.status).toBe(201);
  journeyId = ((await journey.json()) as { id: string }).id;
  const key = await api('/v1/keys', 'POST', {
    name: KEY_NAME,
    accounts: [APP_ID],
    operations: ['schedule', 'read'],
  });
  expect(key.status).toBe(201);
  await h.simulator.push('follow', FOLLOWER, { appId: APP_ID });
  expect((await api(`/v1/sequences/${journeyId}/enrollments`, 'POST', { openid: FOLLOWER })).status).toBe(
    201,
  );
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

/** Whether the simulated Open Platform counts this server in the platform's IP whitelist. */
const ipWhitelisted = (registered: boolean) =>
  fetch(`${h.simulatorUrl}/__sim/component/ip-whitelist`, {
    method: 'POST',
    body: JSON.stringify({ registered }),
  });

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

  it('asks before deleting a draft, in a dialog', async () => {
    await page.locator(`tr[data-sequence="${draftId}"] [data-action="delete"]`).click();
    await page.waitForSelector('dialog.confirm');
    await expectText(page.locator('dialog.confirm h2'), DRAFT_NAME);
    await expectText(
      page.locator('dialog.confirm [data-test="confirm"]'),
      language === 'en' ? 'Delete' : '删除',
    );
    await review('delete-dialog');
    await page.locator('dialog.confirm button.secondary').click();
    await page.waitForSelector('dialog.confirm', { state: 'detached' });
  });

  it('shows the results of a sequence', async () => {
    await page.goto(adminUrl(service, `sequences/${sequenceId}`));
    await page.waitForSelector('tr[data-step="1"]');
    await review('results');
  });

  it('asks before pausing a sequence, saying what pausing cancels', async () => {
    await page.locator('.page-head [data-action="pause"]').click();
    await page.waitForSelector('dialog.confirm');
    await expectText(page.locator('dialog.confirm h2'), SEQUENCE_NAME);
    await expectText(page.locator('dialog.confirm'), language === 'en' ? 'until you resume' : '恢复后');
    await review('pause-dialog');
    await page.locator('dialog.confirm button.secondary').click();
    await page.waitForSelector('dialog.confirm', { state: 'detached' });
  });

  it('shows the results of a journey, per path', async () => {
    await page.goto(adminUrl(service, `sequences/${journeyId}`));
    const main = page.locator('tr[data-path="1:main"] td');
    await expectText(main.nth(1), language === 'en' ? 'main' : '主路径');
    await expectText(main.nth(2), '1');
    await page.waitForSelector(`tr[data-path="1:${PATHS.no}"]`);
    await page.waitForSelector('[data-test="conversions"]');
    await review('journey-results');
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

  it('sends a test, and says why a follower whose window is closed did not get it', async () => {
    await page.goto(adminUrl(service, `test-send?sequence=${sequenceId}`));
    await expectText(page.locator('.phone .bubble'), WELCOME);
    await review('test-send');
    await page.fill('input[name="openid"]', STRANGER);
    await page.click('[data-action="send"]');
    await expectText(
      page.locator('.test-result [data-status]'),
      language === 'en' ? 'skipped' : '已跳过',
      15_000,
    );
    await expectText(page.locator('.test-result'), 'window_closed');
    await review('test-send-skipped');

    // An openid WeChat could not have issued: the API refuses the send, the page says why beside the field.
    await page.fill('input[name="openid"]', `${STRANGER} 2`);
    await page.click('[data-action="send"]');
    await page.waitForSelector('.field[data-path="openid"] .field-error');
    await expectText(
      page.locator('.test-result .error'),
      language === 'en' ? 'invalid test send' : '提交的内容有误',
    );
    await review('test-send-refused');
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

  it('lists the API keys, and explains a key request it refuses', async () => {
    await page.click('[data-nav="keys"]');
    await expectText(
      page.locator('#keys tbody tr td').nth(3),
      language === 'en' ? 'schedule, read' : '安排发送、查看',
    );
    await page.click('[data-action="create-key"]');
    await page.waitForSelector('.key-form .field-error');
    await review('keys');
  });

  it('lists the changes made through the API in words, the times in the account’s zone', async () => {
    await page.click('[data-nav="audit"]');
    await expectText(
      page.locator('#audit tr[data-audit-action="sequence.created"] td.what'),
      language === 'en' ? 'created the sequence' : '新建了序列',
    );
    await expectText(
      page.locator('#audit tr[data-audit-action="account.updated"] td.details'),
      language === 'en' ? 'fields changed: Name, Time zone' : '修改的字段：名称、时区',
    );
    expect(
      await page.locator('#audit tr[data-audit-action="account.updated"] td.when').textContent(),
    ).toMatch(ZONED_TIME);
    await review('audit');
    await page.click('[data-nav="accounts"]');
    await page.waitForSelector(`tr[data-account="${APP_ID}"]`);
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
    // Two accounts once the first language's run has connected one (below).
    await page.selectOption('select[name="appId"]', APP_ID);
    await page.fill('input[name="openid"]', FOLLOWER);
    await page.click('[data-action="look-up"]');
    await page.waitForSelector('.follower .badge.msg-sent');
    expect(await page.locator('.follower').textContent()).toMatch(ZONED_TIME);
    await review('follower');
  });

  it('connects an official account through the platform: the link, the new account, the errors', async () => {
    await page.click('[data-nav="accounts"]');
    await page.click('[data-action="connect"]');
    await page.waitForSelector('[data-action="authorize"]');
    await expectText(
      page.locator('#connect'),
      language === 'en' ? 'The link works once' : '该链接仅可使用一次',
    );
    await review('connect');

    const connected = anAppId();
    await page.locator('[data-action="authorize"]').click();
    await page.fill('input[name="sim_appid"]', connected);
    await page.fill('input[name="sim_func"]', '1');
    await page.click('button[type="submit"]');
    await page.waitForURL(new RegExp(`/admin/accounts/${connected}\\?connected=created$`));
    await expectText(
      page.locator('[data-connect="created"]'),
      language === 'en' ? `Connected ${connected}` : `已接入 ${connected}`,
    );
    await review('connected');

    await page.goto(adminUrl(service, 'accounts?connect_error=state_invalid'));
    await expectText(
      page.locator('[data-connect="error"]'),
      language === 'en' ? 'The service did not make that authorization link' : '该授权链接不是本服务生成的',
    );
    await review('connect-error');

    // WeChat refuses a pre-auth code to a server outside the platform's IP whitelist.
    expect((await ipWhitelisted(false)).status).toBe(200);
    try {
      await page.click('[data-action="connect"]');
      await expectText(
        page.locator('#connect .error'),
        language === 'en' ? 'Could not start connecting' : '无法发起授权',
      );
    } finally {
      await ipWhitelisted(true);
    }
    await review('connect-refused');
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
