import { APP_ID } from '../helpers/harness';
import { adminUrl, expectText, useSignedInBrowser } from './browser';

const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'e2eimagetoken', windowPolicy: 'official' };
// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

jest.setTimeout(60_000);

const {
  started,
  browser: openBrowser,
  apiJson,
} = useSignedInBrowser({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) });

describe('an image step’s picture, uploaded in the editor (docs/sequences.md "Sequences")', () => {
  it('uploads the file to the account’s permanent media and fills in its media_id, which the sequence saves', async () => {
    const browser = openBrowser();
    const { page } = browser;
    await page.goto(adminUrl(started.service, 'sequences/new'));
    await page.fill('input[name="name"]', '图片欢迎');
    const step = page.locator('.step[data-step="1"]');
    await step.locator('select[name="msgtype"]').selectOption('image');
    await step
      .locator('input[name="image-file"]')
      .setInputFiles({ name: '欢迎.png', mimeType: 'image/png', buffer: PNG });
    await expectText(step.locator('.image-upload'), '已上传 欢迎.png');
    const mediaId = await step.locator('input[name="media_id"]').inputValue();
    expect(mediaId).toMatch(/^sim-media-/);
    await browser.screenshot('image-upload-zh-CN');

    // WeChat keeps it (the simulator's record), and the saved step sends it by that media_id.
    const kept = (await (await fetch(`${started.h.simulatorUrl}/__sim/media?appId=${APP_ID}`)).json()) as {
      media: { mediaId: string; contentType: string; bytes: number }[];
    };
    expect(kept.media).toEqual([
      expect.objectContaining({ mediaId, contentType: 'image/png', bytes: PNG.length }),
    ]);
    await page.click('[data-test="save"]');
    await page.waitForURL(/\/admin\/sequences\/[0-9a-f-]{36}$/);
    const saved = (await apiJson(`/v1/sequences/${page.url().split('/').pop()!}`)) as {
      steps: { message: unknown }[];
    };
    expect(saved.steps[0].message).toEqual({ msgtype: 'image', image: { media_id: mediaId } });
    expect(browser.problems).toEqual([]);
  });
});
