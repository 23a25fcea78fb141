import { APP_ID } from '../helpers/harness';
import { adminUrl, expectText, useSignedInBrowser } from './browser';

// The list in Chinese at 1280 px: each row names its account (the app id where two accounts share a
// name, or where the account was deleted), an API trigger is said in words, and Duplicate / Delete run
// through the confirmation dialog.
const SECOND = 'wxe2esecond00001';
const SHARED_NAME = '课程服务号';
const accounts = [
  { appId: APP_ID, secret: 'test-secret', token: 'e2epushtoken', windowPolicy: 'official' },
  { appId: SECOND, secret: 'second-secret', token: 'e2epushtoken2', windowPolicy: 'official' },
];

jest.setTimeout(90_000);

const { browser, apiJson, createSequence, started } = useSignedInBrowser({
  WECHAT_ACCOUNTS: JSON.stringify(accounts),
});
const page = () => browser().page;
const row = (id: string) => page().locator(`tr[data-sequence="${id}"]`);

/** An API-triggered sequence of `appId` whose step is an hour away (nothing is sent meanwhile). */
const anApiSequence = (appId: string, name: string, status: 'draft' | 'active' = 'active') =>
  createSequence({
    appId,
    name,
    status,
    trigger: { type: 'api' },
    steps: [{ offsetMs: 3_600_000, message: { msgtype: 'text', text: { content: '一小时后见' } } }],
  });

/**
 * For each column header and status badge of the list whose text takes more than one line, its text: a
 * string run in the page (the test's own compiler has no DOM types).
 */
const WRAPPED = `(() => {
  const lines = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  };
  return [...document.querySelectorAll('#sequences th, #sequences .badge')]
    .filter((el) => el.textContent.trim() !== '' && lines(el) > 1)
    .map((el) => el.textContent);
})()`;

let welcome = { id: '', name: '春季课程欢迎' };
let used = { id: '' };
let draft = { id: '' };
let orphan = { id: '', appId: '' };

beforeAll(async () => {
  for (const appId of [APP_ID, SECOND]) {
    const named = await apiJson(`/v1/accounts/${appId}`, {
      method: 'PATCH',
      body: JSON.stringify({ name: SHARED_NAME }),
    });
    expect(named.name).toBe(SHARED_NAME);
  }
  // An account created, given a sequence, then deleted: the deletion archives its sequence.
  const gone = await apiJson('/v1/accounts', {
    method: 'POST',
    body: JSON.stringify({ appId: 'wxe2egone0000001', secret: 'gone-secret', name: '旧公众号' }),
  });
  orphan = await anApiSequence(gone.appId, '旧账号的序列');
  const deleted = await apiJson(`/v1/accounts/${gone.appId}`, { method: 'DELETE' });
  expect(deleted).toMatchObject({ deleted: true, archivedSequences: 1 });

  welcome = await anApiSequence(APP_ID, welcome.name);
  used = await anApiSequence(APP_ID, '已用过的序列');
  const enrolled = await apiJson(`/v1/sequences/${used.id}/enrollments`, {
    method: 'POST',
    body: JSON.stringify({ openid: 'o-e2e-list' }),
  });
  expect(enrolled.created).toBe(true);
  expect((await apiJson(`/v1/sequences/${used.id}/archive`, { method: 'POST' })).status).toBe('archived');
  draft = await anApiSequence(SECOND, '第二个号的草稿', 'draft');
  // The archived are listed on asking: these tests look at them too.
  await page().goto(adminUrl(started.service, 'sequences?archived=1'));
  await page().waitForSelector(`tr[data-sequence="${draft.id}"]`);
});

describe('the sequence list', () => {
  it('names each row’s account, with the app id where names repeat or the account is gone; a deleted account’s sequence reads archived', async () => {
    await expectText(page().locator('#sequences thead'), '公众号');
    expect(await row(welcome.id).locator('.account-cell .line').allTextContents()).toEqual([
      SHARED_NAME,
      APP_ID,
    ]);
    expect(await row(draft.id).locator('.account-cell .line').allTextContents()).toEqual([
      SHARED_NAME,
      SECOND,
    ]);
    expect(await row(orphan.id).locator('.account-cell .line').allTextContents()).toEqual([
      orphan.appId,
      '已删除',
    ]);
    await expectText(row(orphan.id).locator('.badge'), '已归档');
    await expectText(row(welcome.id), '由其他系统通过接口加入');
    expect(await row(welcome.id).textContent()).not.toContain('enrollments');
  });

  it('at 1280 px, no column header or status badge wraps', async () => {
    // The counts are in: the rows are as wide as they get.
    await expectText(row(used.id).locator('[data-count="enrolled"]'), '1');
    expect(await page().evaluate<string[]>(WRAPPED)).toEqual([]);
    await browser().screenshot('sequence-list-1280');
  });

  it('duplicates a sequence through the dialog as a draft named “（副本）”', async () => {
    await row(welcome.id).locator('[data-action="duplicate"]').click();
    const dialog = page().locator('dialog.confirm');
    await expectText(dialog, `复制“${welcome.name}”？`);
    expect(await dialog.locator('input[name="copy-name"]').inputValue()).toBe(`${welcome.name}（副本）`);
    await browser().screenshot('sequence-list-duplicate-dialog');
    await dialog.locator('[data-test="confirm"]').click();

    const copyRow = page().locator('#sequences tbody tr', { hasText: `${welcome.name}（副本）` });
    await expectText(copyRow.locator('.badge'), '草稿');
    const listed: { sequences: { id: string; name: string; status: string; version: number }[] } =
      await apiJson('/v1/sequences');
    const copy = listed.sequences.find((s) => s.name === `${welcome.name}（副本）`);
    expect(copy).toMatchObject({ status: 'draft', version: 1 });
    expect(listed.sequences.find((s) => s.id === welcome.id)).toMatchObject({ status: 'active' });
  });

  it('deletes a draft after the dialog; dismissing the dialog deletes nothing', async () => {
    await row(draft.id).locator('[data-action="delete"]').click();
    await expectText(page().locator('dialog.confirm'), `删除“第二个号的草稿”？`);
    await page().locator('dialog.confirm button.secondary').click();
    expect((await apiJson(`/v1/sequences/${draft.id}`)).status).toBe('draft');

    await row(draft.id).locator('[data-action="delete"]').click();
    await page().locator('dialog.confirm [data-test="confirm"]').click();
    await row(draft.id).waitFor({ state: 'detached' });
    expect((await apiJson(`/v1/sequences/${draft.id}`)).error.code).toBe('not_found');
  });

  it('offers no delete for an active sequence, and disables it, saying why, for an archived one that enrolled followers', async () => {
    expect(await row(welcome.id).locator('[data-action="delete"]').count()).toBe(0);
    const refused = row(used.id).locator('[data-action="delete"]');
    expect(await refused.isDisabled()).toBe(true);
    expect(await refused.getAttribute('title')).toContain('结果作为历史保留');
    expect(await row(orphan.id).locator('[data-action="delete"]').isDisabled()).toBe(false);
  });

  it('leaves the archived out until asked, the link saying how many', async () => {
    await page().goto(adminUrl(started.service, 'sequences'));
    await row(welcome.id).waitFor();
    const toggle = page().locator('[data-action="toggle-archived"]');
    await expectText(toggle, '显示已归档的序列（2）');
    expect(await row(used.id).count()).toBe(0);
    expect(await row(orphan.id).count()).toBe(0);

    await toggle.click();
    await row(used.id).waitFor();
    await expectText(row(orphan.id).locator('.badge'), '已归档');
    await expectText(page().locator('[data-action="toggle-archived"]'), '隐藏已归档的序列');
    expect(new URL(page().url()).search).toBe('?archived=1');
  });
});
