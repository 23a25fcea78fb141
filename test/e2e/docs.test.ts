import type { Service } from '../../src/main/start-service';
import { createHarness, type Harness } from '../helpers/harness';
import { expectText, launchBrowser, type TestBrowser } from './browser';

jest.setTimeout(60_000);

let h: Harness;
let service: Service;
let browser: TestBrowser;

beforeAll(async () => {
  h = await createHarness();
  service = await h.start();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

describe('the API documentation page', () => {
  it('renders the contract: POST /v1/messages opens on its request body and answers, with no blocked load', async () => {
    const { page } = browser;
    const origins = new Set<string>();
    page.on('request', (request) => origins.add(new URL(request.url()).origin));
    await page.goto(`${service.url ?? ''}/docs`);

    const operation = page.locator('#operations-messages-scheduleMessage');
    await expectText(operation.locator('.opblock-summary'), 'Schedule one message');
    await operation.locator('.opblock-summary-control').click();
    await expectText(operation.locator('.opblock-section-request-body'), '"idempotencyKey"');
    await expectText(operation.locator('.responses-wrapper'), 'Scheduled.');
    await expectText(operation.locator('.responses-wrapper'), 'The request conflicts with the current state');
    await browser.screenshot('docs');

    expect(browser.problems).toEqual([]);
    expect([...origins]).toEqual([new URL(service.url ?? '').origin]);
  });
});
