import type { TriggerEvent } from '../sequences/enroll';
import type { FollowerAction } from '../sequences/follower-actions';
import type { Push } from '../wechat/push';
import type { InteractionKind } from '../wechat/window-policy';
import {
  NOTICE_EVENTS,
  type NoticeAnswer,
  type NoticeResult,
  readNoticeAnswers,
  readNoticeResults,
} from './notice-pushes';
import { readTemplateReport, TEMPLATE_REPORT_EVENT, type TemplateReportRead } from './template-report-push';

/**
 * What a push means for the drip: an interaction (opens a window), a trigger, what it offers to the exit
 * conditions of the follower's running enrollments, an unfollow, subscription-notice answers or delivery
 * results, or nothing.
 */
export interface PushMeaning {
  readonly interaction: InteractionKind | null;
  /** Short description kept with the interaction (msg type, scene, menu key). */
  readonly detail: string | null;
  readonly trigger: TriggerEvent | null;
  /** What the follower did, offered to the exit conditions and the waits of their running enrollments. */
  readonly action: FollowerAction | null;
  readonly unsubscribe: boolean;
  /** A subscription-notice popup or change: the follower's answers per template. */
  readonly noticeAnswers: readonly NoticeAnswer[];
  /** A subscription-notice sent event: the delivery results. */
  readonly noticeResults: readonly NoticeResult[];
  /** A template message's delivery report (`TEMPLATESENDJOBFINISH`). */
  readonly templateReport: TemplateReportRead | null;
}

const NOTHING: PushMeaning = {
  interaction: null,
  detail: null,
  trigger: null,
  action: null,
  unsubscribe: false,
  noticeAnswers: [],
  noticeResults: [],
  templateReport: null,
};
const SCENE_PREFIX = 'qrscene_';
// Menu types whose click counts as an interaction (reference/wechat.md §2.1); `view` (a link) does not.
const CLICK_EVENTS = new Set(['CLICK', 'scancode_push', 'scancode_waitmsg']);

/**
 * Reads a push. User messages of any type count as `message` — except a tap on a msgmenu option, which
 * WeChat delivers as text with `bizmsgmenuid` but counts as a menu click (kf intro, "特别说明"); having no
 * menu key, it meets no trigger and no exit condition. Only a text message has text for keywords.
 * Subscription-notice events carry the follower's answers per template or a notice's delivery results;
 * they open no window, nor does a template message's delivery report. Unknown event types mean nothing: they are recorded and answered, and start nothing.
 */
export function interpretPush(push: Push): PushMeaning {
  if (push.msgType !== 'event') {
    if (push.fields.bizmsgmenuid) {
      return { ...NOTHING, interaction: 'click', detail: `msgmenu:${push.fields.bizmsgmenuid}` };
    }
    const text = push.msgType === 'text' ? (push.content ?? '') : null;
    return {
      ...NOTHING,
      interaction: 'message',
      detail: push.msgType,
      trigger: text === null ? null : { type: 'message', text },
      action: { type: 'message', text },
    };
  }
  const key = push.eventKey ?? '';
  switch (push.event) {
    case 'subscribe': {
      const scene = key.startsWith(SCENE_PREFIX) ? key.slice(SCENE_PREFIX.length) : null;
      return { ...NOTHING, interaction: 'subscribe', detail: scene, trigger: { type: 'subscribe', scene } };
    }
    case 'unsubscribe':
      return { ...NOTHING, unsubscribe: true };
    case 'SCAN':
      return {
        ...NOTHING,
        interaction: 'scan',
        detail: key,
        trigger: { type: 'scan', scene: key },
        action: { type: 'scan', scene: key },
      };
    case NOTICE_EVENTS.popup:
    case NOTICE_EVENTS.change:
      return { ...NOTHING, noticeAnswers: readNoticeAnswers(push) };
    case NOTICE_EVENTS.sent:
      return { ...NOTHING, noticeResults: readNoticeResults(push) };
    case TEMPLATE_REPORT_EVENT:
      return { ...NOTHING, templateReport: readTemplateReport(push) };
    default:
      if (push.event && CLICK_EVENTS.has(push.event)) {
        return {
          ...NOTHING,
          interaction: 'click',
          detail: key,
          trigger: { type: 'click', key },
          action: { type: 'click', key },
        };
      }
      return NOTHING;
  }
}
