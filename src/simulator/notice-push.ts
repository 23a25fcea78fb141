import { z } from 'zod';
import type { ListPushField, PushField } from './push-format';

/** A notice action's answers: one per template, accept or reject (a popup lists at most 5 notices). */
export const noticeAnswersSchema = z
  .array(z.object({ templateId: z.string().min(1).max(128), status: z.enum(['accept', 'reject']) }).strict())
  .min(1)
  .max(5);

/** The `SubscribeMsgPopupEvent` list of a popup; PopupScene 2 = an article (reference/wechat-platform.md §2.3). */
export function noticePopupFields(answers: z.output<typeof noticeAnswersSchema>): ListPushField {
  return [
    'SubscribeMsgPopupEvent',
    answers.map((a) => [
      ['TemplateId', a.templateId, 'text'],
      ['SubscribeStatusString', a.status, 'text'],
      ['PopupScene', '2', 'number'],
    ]),
    'list',
  ];
}

/** The `SubscribeMsgSentEvent` list of a delivered notice: ErrorCode 0, `success`. */
export function noticeSentFields(templateId: string, msgid: number): ListPushField {
  return [
    'SubscribeMsgSentEvent',
    [
      [
        ['TemplateId', templateId, 'text'],
        ['MsgID', String(msgid), 'number'],
        ['ErrorCode', '0', 'number'],
        ['ErrorStatus', 'success', 'text'],
      ],
    ],
    'list',
  ];
}

/** A push's fields as the simulator reports them: plain values as sent, a list as its JSON. */
export function plainFields(fields: readonly PushField[]): Record<string, string> {
  return Object.fromEntries(
    fields.map((f) =>
      f[2] === 'list'
        ? [f[0], JSON.stringify(f[1].map((e) => Object.fromEntries(e.map(([n, v]) => [n, v]))))]
        : [f[0], f[1]],
    ),
  );
}
