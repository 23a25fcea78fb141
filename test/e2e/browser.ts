import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium, installed by scripts/ensure-chromium.sh (the e2e project's globalSetup). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS_DIR = path.join(__dirname, '../../test-artifacts/e2e');

// Headless without the sandbox (containers and CI run as root), and no background traffic: component
// updates, sync and first-run pages would make the run slower and depend on the network.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const VIEWPORT = { width: 1280, height: 900 };

export interface TestBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Saves the whole page as test-artifacts/e2e/<name>.png. */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Chromium with a fresh user-data-dir (no state from an earlier run), one page, 1280 × 900. */
export async function launchBrowser(): Promise<TestBrowser> {
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'wechat-drip-e2e-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: VIEWPORT,
    locale: 'zh-CN',
    timezoneId: 'Asia/Shanghai',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return {
    context,
    page,
    async screenshot(name) {
      // A viewport as tall as the page, so sticky parts (the save bar, the preview) sit where a reader
      // expects them instead of where the 900 px viewport happened to leave them.
      const height = await page.evaluate<number>('document.documentElement.scrollHeight');
      await page.setViewportSize({ width: VIEWPORT.width, height: Math.max(VIEWPORT.height, height) });
      await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
      await page.setViewportSize(VIEWPORT);
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
