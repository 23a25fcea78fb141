import type { Locator, Page } from 'playwright-core';
import type { SequenceView } from '../../src/contract';
import type { Service } from '../../src/main/start-service';
import { aTextMessage } from '../helpers/builders';
import { APP_ID } from '../helpers/harness';
import { adminUrl } from './browser';

/**
 * Creates a follow sequence with a welcome step, opens it in the editor and adds a second step at +2 min
 * (past the official 1-minute window) with its fallback turned on; answers the sequence and that step.
 */
export async function editLateStep(
  page: Page,
  service: Pick<Service, 'url'>,
  createSequence: (definition: Record<string, unknown>) => Promise<SequenceView>,
  name: string,
): Promise<{ created: SequenceView; step: Locator }> {
  const created = await createSequence({
    appId: APP_ID,
    name,
    trigger: { type: 'subscribe' },
    steps: [{ offsetMs: 0, message: aTextMessage('欢迎关注') }],
  });
  await page.goto(adminUrl(service, `sequences/${created.id}/edit`));
  await page.click('[data-test="add-step"]');
  const step = page.locator('.step[data-step="2"]');
  await step.locator('input[name="offset"]').fill('2');
  await step.locator('select[name="unit"]').selectOption('minutes');
  await step.locator('textarea[name="content"]').fill('课程明天开始');
  await step.locator('input[name="fallback"]').check();
  return { created, step };
}
