import { z } from 'zod';
import { createCountedSetting, parseSpec } from './counted-setting';
import type { PlainPushField } from './push-format';

/**
 * The `Status` values of a `TEMPLATESENDJOBFINISH` push (reference/wechat.md §6.1 and its late-2026
 * update): delivered, refused by the follower, failed inside WeChat, or held back by WeChat's frequency
 * limit (`failed:freq limit`, seen in the field since 2023).
 */
export const TEMPLATE_REPORT_STATUSES = [
  'success',
  'failed:user block',
  'failed:system failed',
  'failed:freq limit',
] as const;
export type TemplateReportStatus = (typeof TEMPLATE_REPORT_STATUSES)[number];

/** Which delivery report the next accepted template sends get; none are pushed without one. */
export interface TemplateReportSpec {
  readonly status: TemplateReportStatus;
  /** Report the next N accepted template sends only, then stop; null = until cleared. */
  readonly count: number | null;
}

const SPEC_SCHEMA = z.strictObject({
  status: z.enum(TEMPLATE_REPORT_STATUSES),
  count: z.number().int().positive().nullable().default(null),
});

/** Validates a `POST /__sim/template-reports` body; returns the spec or the list of problems. */
export const parseTemplateReportSpec = (
  input: unknown,
): { spec: TemplateReportSpec } | { problems: string[] } => parseSpec(SPEC_SCHEMA, input);

/** The delivery-report state of one simulator. A new spec replaces the previous one. */
export interface TemplateReports {
  set(spec: TemplateReportSpec): void;
  clear(): void;
  current(): TemplateReportSpec | null;
  /** The status to report for a template send just accepted, counted against `count`; null: no report. */
  next(): TemplateReportStatus | null;
}

/**
 * Creates the state. Off by default: WeChat reports every template send, but a push per send would change
 * the webhook traffic of every test that sends templates, so a test asks for the reports it checks.
 */
export function createTemplateReports(): TemplateReports {
  const setting = createCountedSetting<TemplateReportSpec>();
  return {
    set: setting.set,
    clear: setting.clear,
    current: setting.current,
    next: () => setting.take()?.status ?? null,
  };
}

/** The event fields of a `TEMPLATESENDJOBFINISH` push after the common head: its MsgID and Status. */
export function templateReportFields(msgid: number, status: TemplateReportStatus): PlainPushField[] {
  return [
    ['Event', 'TEMPLATESENDJOBFINISH', 'text'],
    ['MsgID', String(msgid), 'number'],
    ['Status', status, 'text'],
  ];
}
