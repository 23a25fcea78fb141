import type { AuditList } from '../../src/contract';
import { APP_ID } from '../helpers/harness';
import { expectText, useSignedInBrowser } from './browser';

// The audit log page (操作记录) in Chinese, then once in English: changes made through the API read as
// words, the account filter narrows the list, and "more" loads the entries older than the first 50.
const SECOND = 'wxe2esecond00001';
/** Gets 55 changes, more than one page (50), before everything else: they are the oldest entries. */
const BULK = 'wxe2ebulk0000001';
/** Never changed through the API: filtered on, the list is empty. */
const QUIET = 'wxe2equiet000001';
const accounts = [APP_ID, SECOND, BULK, QUIET].map((appId, i) => ({
  appId,
  secret: `secret-${i}`,
  token: `e2epushtoken${i}`,
  windowPolicy: 'official',
}));
const ACCOUNT_NAME = '春季课程公众号';
const WELCOME = '春季课程欢迎';
const DRAFT = '临时草稿';
const PAGE_SIZE = 50;
const BULK_CHANGES = 55;
/** A time as the Chinese page shows it for an account in the default zone. */
const BEIJING_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d \(北京时间\)$/;

jest.setTimeout(120_000);

const { browser, apiJson, createSequence } = useSignedInBrowser({
  WECHAT_ACCOUNTS: JSON.stringify(accounts),
});
const page = () => browser().page;
const rows = () => page().locator('#audit tbody tr[data-entry]');
const rowOf = (action: string, nth = 0) =>
  page().locator(`#audit tr[data-audit-action="${action}"]`).nth(nth);
const more = () => page().locator('#main [data-action="more"]');
const ROWS = "document.querySelectorAll('#audit tbody tr[data-entry]')";
/** Each listed entry's attribute `name`, in order (a string run in the page: the test has no DOM types). */
const rowAttrs = (name: string) =>
  page().evaluate<(string | null)[]>(`[...${ROWS}].map((tr) => tr.getAttribute('${name}'))`);
/** Waits until the list shows `n` entries (the page's CSP refuses `waitForFunction`'s strings). */
async function waitForRows(n: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let shown = await rows().count();
  while (shown !== n && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    shown = await rows().count();
  }
  if (shown !== n) throw new Error(`expected the list to show ${n} entries, it showed ${shown}`);
}

/** An API-triggered sequence whose step is an hour away: an enrollment leaves one pending step. */
const definition = (appId: string, name: string, content = '一小时后见') => ({
  appId,
  name,
  trigger: { type: 'api' },
  steps: [{ offsetMs: 3_600_000, message: { msgtype: 'text', text: { content } } }],
});

const patchAccount = (appId: string, body: Record<string, unknown>) =>
  apiJson(`/v1/accounts/${appId}`, { method: 'PATCH', body: JSON.stringify(body) });

let welcome = { id: '' };
let copy = { id: '', name: '' };
let draft = { id: '' };
/** Every entry, newest first, as the API lists them. */
let all: AuditList['entries'] = [];

beforeAll(async () => {
  for (let i = 0; i < BULK_CHANGES; i++) {
    expect((await patchAccount(BULK, { sendRatePerSecond: 10 + i })).sendRatePerSecond).toBe(10 + i);
  }
  const named = await patchAccount(APP_ID, {
    name: ACCOUNT_NAME,
    quietHours: { start: '22:00', end: '08:00' },
    frequencyCapPerDay: 3,
  });
  expect(named.name).toBe(ACCOUNT_NAME);

  welcome = await createSequence({ ...definition(APP_ID, WELCOME), status: 'active' });
  const enrolled = await apiJson(`/v1/sequences/${welcome.id}/enrollments`, {
    method: 'POST',
    body: JSON.stringify({ openid: 'o-e2e-audit' }),
  });
  expect(enrolled.created).toBe(true);
  const edited = await apiJson(`/v1/sequences/${welcome.id}`, {
    method: 'PUT',
    body: JSON.stringify(definition(APP_ID, WELCOME, '一小时后再见')),
  });
  expect(edited.version).toBe(2);
  const paused = await apiJson(`/v1/sequences/${welcome.id}/pause`, { method: 'POST' });
  expect(paused).toMatchObject({ status: 'paused', cancelledSteps: 1 });
  copy = await apiJson(`/v1/sequences/${welcome.id}/duplicate`, {
    method: 'POST',
    body: JSON.stringify({ name: `${WELCOME}（副本）` }),
  });
  expect(copy.name).toBe(`${WELCOME}（副本）`);

  draft = await createSequence(definition(APP_ID, DRAFT));
  expect((await apiJson(`/v1/sequences/${draft.id}`, { method: 'DELETE' })).deleted).toBe(true);
  await createSequence(definition(SECOND, '第二个号的草稿'));

  all = ((await apiJson('/v1/audit?limit=200')) as AuditList).entries;
  expect(all).toHaveLength(BULK_CHANGES + 8);

  await page().click('[data-nav="audit"]');
  await page().waitForURL(/\/admin\/audit$/);
  await rows().first().waitFor();
});

describe('the audit log page', () => {
  it('lists the changes newest first, each in words: time, who, from where, what, which, details', async () => {
    await expectText(page().locator('h1'), '操作记录');
    await expectText(page().locator('#audit thead'), '操作人');
    expect((await rowAttrs('data-audit-action')).slice(0, 8)).toEqual([
      'sequence.created',
      'sequence.deleted',
      'sequence.created',
      'sequence.duplicated',
      'sequence.paused',
      'sequence.updated',
      'sequence.created',
      'account.updated',
    ]);

    const paused = rowOf('sequence.paused');
    const cells = await paused.locator('td').allTextContents();
    expect(cells[0]).toMatch(BEIJING_TIME);
    expect(cells[1]).toBe('管理令牌');
    expect(cells[2]).toBe(all.find((e) => e.action === 'sequence.paused')?.source);
    expect(cells[2]).toMatch(/\d/);
    expect(cells.slice(3)).toEqual(['暂停了序列', WELCOME, '取消了 1 条待发送消息']);
    expect(await paused.locator('td.target a').getAttribute('href')).toBe(`/admin/sequences/${welcome.id}`);

    await expectText(rowOf('sequence.updated').locator('td.details'), '第 2 版');
    // The first sequence.created (newest first) is the second account's draft, the last one the welcome.
    await expectText(rowOf('sequence.created', 2).locator('td.details'), '状态：进行中');
    await expectText(rowOf('sequence.created', 0).locator('td.details'), '状态：草稿');

    const duplicated = rowOf('sequence.duplicated');
    await expectText(duplicated.locator('td.what'), '复制生成了序列');
    expect(await duplicated.locator('td.target a').textContent()).toBe(copy.name);
    expect(await duplicated.locator('td.details').textContent()).toBe(`复制自“${WELCOME}”`);
    expect(await duplicated.locator('td.details a').getAttribute('href')).toBe(
      `/admin/sequences/${welcome.id}`,
    );

    const account = rowOf('account.updated');
    expect(await account.locator('td.what').textContent()).toBe('修改了公众号');
    expect(await account.locator('td.target').textContent()).toBe(ACCOUNT_NAME);
    expect(await account.locator('td.details').textContent()).toBe(
      '修改的字段：频次上限、名称、默认静默时段',
    );
  });

  it('names a deleted sequence as plain text, without a link', async () => {
    for (const action of ['sequence.deleted', 'sequence.created'] as const) {
      const row = rowOf(action, action === 'sequence.deleted' ? 0 : 1);
      expect(await row.locator('td.target').textContent()).toBe(DRAFT);
      expect(await row.locator('td.target a').count()).toBe(0);
    }
    await expectText(rowOf('sequence.deleted').locator('td.what'), '删除了序列');
    await browser().screenshot('audit-log');
  });

  it('loads the older entries with “more”, then hides it', async () => {
    expect(await rows().count()).toBe(PAGE_SIZE);
    await expectText(more(), '加载更早的记录');
    await more().click();
    await waitForRows(all.length);
    expect(await rowAttrs('data-entry')).toEqual(all.map((e) => e.id));
    await more().waitFor({ state: 'hidden' });
    // The oldest: the first of the bulk changes, the field named as the account form labels it.
    expect(await rows().last().locator('td.details').textContent()).toBe('修改的字段：发送速率（条/秒）');
  });

  it('narrows the list to one account with the filter, and says when it has no entries', async () => {
    await page().selectOption('.audit-filter select', SECOND);
    await page().waitForURL(new RegExp(`/admin/audit\\?appId=${SECOND}$`));
    await waitForRows(1);
    expect(await rows().first().getAttribute('data-app')).toBe(SECOND);
    await expectText(rows().first().locator('td.target'), '第二个号的草稿');
    expect(await more().isHidden()).toBe(true);

    await page().selectOption('.audit-filter select', BULK);
    await page().waitForURL(new RegExp(`/admin/audit\\?appId=${BULK}$`));
    await waitForRows(PAGE_SIZE);
    expect(new Set(await rowAttrs('data-app'))).toEqual(new Set([BULK]));
    await more().click();
    await waitForRows(BULK_CHANGES);

    await page().selectOption('.audit-filter select', QUIET);
    await expectText(page().locator('#audit td.empty'), '还没有操作记录。');
    expect(await rows().count()).toBe(0);

    await page().selectOption('.audit-filter select', '');
    await page().waitForURL(/\/admin\/audit$/);
    await waitForRows(PAGE_SIZE);
  });

  it('reads in English by the switch', async () => {
    await page().click('[data-lang="en"]');
    await expectText(page().locator('h1'), 'Activity');
    const paused = rowOf('sequence.paused');
    await paused.waitFor();
    expect((await paused.locator('td').allTextContents()).slice(3)).toEqual([
      'paused the sequence',
      WELCOME,
      'cancelled 1 pending message',
    ]);
    await expectText(paused.locator('td').nth(0), '(Asia/Shanghai)');
    await expectText(paused.locator('td').nth(1), 'admin token');
    expect(await rowOf('account.updated').locator('td.details').textContent()).toBe(
      'fields changed: Frequency cap, Name, Default quiet hours',
    );
    await browser().screenshot('audit-log-en');
  });

  it('ran without script errors or Content-Security-Policy violations', () => {
    expect(browser().problems).toEqual([]);
  });
});
