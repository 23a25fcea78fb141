import { APP_ID } from '../helpers/harness';
import { adminUrl, expectText, useSignedInBrowser } from './browser';

const ACCOUNT = { appId: APP_ID, secret: 'test-secret', token: 'e2eqrcodetoken', windowPolicy: 'official' };

jest.setTimeout(60_000);

const { started, browser: openBrowser } = useSignedInBrowser({ WECHAT_ACCOUNTS: JSON.stringify([ACCOUNT]) });

describe('the QR code of a scan-triggered sequence (docs/sequences.md "Sequences")', () => {
  it('makes the scene’s QR code in the editor, shows it with its expiry, and offers it as a PNG to save', async () => {
    const browser = openBrowser();
    const { page } = browser;
    await page.goto(adminUrl(started.service, 'sequences/new'));
    await page.waitForSelector('select[name="trigger"]');
    const make = page.locator('[data-action="make-qrcode"]');
    // Offered once the trigger names a scene.
    expect(await make.isVisible()).toBe(false);
    await page.fill('input[name="trigger-param"]', 'spring-poster');
    await make.click();
    const image = page.locator('.qrcode-result img.qrcode');
    await image.waitFor();
    expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await expectText(page.locator('.qrcode-result'), '有效期至');
    await expectText(page.locator('.qrcode-result'), '北京时间');
    const download = page.locator('[data-action="download-qrcode"]');
    expect(await download.getAttribute('download')).toBe('qrcode-spring-poster.png');
    await browser.screenshot('qrcode-zh-CN');

    // WeChat made it for that scene (the simulator's record), temporary for 30 days.
    const made = (await (await fetch(`${started.h.simulatorUrl}/__sim/qrcodes?appId=${APP_ID}`)).json()) as {
      qrcodes: { scene: string; actionName: string; expireSeconds: number | null }[];
    };
    expect(made.qrcodes).toEqual([
      expect.objectContaining({
        scene: 'spring-poster',
        actionName: 'QR_STR_SCENE',
        expireSeconds: 2_592_000,
      }),
    ]);

    await page.selectOption('select[name="qrcode-kind"]', 'permanent');
    await make.click();
    await expectText(page.locator('.qrcode-result'), '永久有效');
    expect(browser.problems).toEqual([]);
  });
});
