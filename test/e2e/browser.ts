import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SequenceView } from '../../src/contract';
import type { Service } from '../../src/main/start-service';
import { ADMIN_TOKEN, useStartedService, type Harness } from '../helpers/harness';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';

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
  /** Script errors and Content-Security-Policy violations seen by the browser since it started. */
  readonly problems: string[];
  /** Saves the whole page as test-artifacts/e2e/<name>.png. */
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Chromium with a fresh user-data-dir (no state from an earlier run), one page, 1280 × 900, whose script
 * errors and CSP violations are collected in `problems`.
 */
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
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (m) => {
    if (/Content Security Policy|Uncaught/i.test(m.text())) problems.push(m.text());
  });
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  return {
    context,
    page,
    problems,
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

/** Waits until the element's text contains `text` (the page refreshes on its own). */
export async function expectText(locator: Locator, text: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last =
      (await locator
        .first()
        .textContent({ timeout: timeoutMs })
        .catch(() => null)) ?? '';
    if (last.includes(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`expected the text to contain "${text}", it was "${last}"`);
}

/** The admin app's page at `path` on a service. */
export const adminUrl = (service: Pick<Service, 'url'>, path: string): string =>
  `${service.url ?? ''}/admin/${path}`;

/** The API's JSON answer, loosely typed: the assertions check it. */
export async function apiJsonOf(
  h: Pick<Harness, 'api'>,
  service: Pick<Service, 'url'>,
  path: string,
  init?: RequestInit,
): Promise<any> {
  return (await h.api(service, path, init)).json();
}

/**
 * A started service with `env` and a browser signed in to its admin page, for one test file: both are
 * ready in the tests and closed after the file. `apiJson` calls the service's API with the admin token.
 */
export function useSignedInBrowser(env: Record<string, string>): {
  readonly started: ReturnType<typeof useStartedService>;
  browser: () => TestBrowser;
  apiJson: (path: string, init?: RequestInit) => Promise<any>;
  /** `POST /v1/sequences` with `definition` as it is; the sequence the API answers. */
  createSequence: (definition: Record<string, unknown>) => Promise<SequenceView>;
} {
  let browser: TestBrowser | undefined;
  // Registered before the service's own, so it runs first: a browser still connected to a closed service
  // kept afterAll waiting (about 90 s) for its connections.
  afterAll(() => browser?.close());
  const started = useStartedService(env);
  beforeAll(async () => {
    browser = await launchBrowser();
    await browser.page.goto(adminUrl(started.service, 'sign-in'));
    await browser.page.fill('input[name="token"]', ADMIN_TOKEN);
    await browser.page.click('button[type="submit"]');
    await browser.page.waitForSelector('#sequences');
  });
  return {
    started,
    browser: () => browser!,
    apiJson: (path, init) => apiJsonOf(started.h, started.service, path, init),
    createSequence: async (definition) =>
      (await apiJsonOf(started.h, started.service, '/v1/sequences', {
        method: 'POST',
        body: JSON.stringify(definition),
      })) as SequenceView,
  };
}
