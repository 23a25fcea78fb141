import { z } from 'zod';
import type { FollowerEvent } from './followers';
import { noticeAnswersSchema } from './notice-push';
import type { SimNoticeAnswer } from './notice-subscriptions';
import type { PushAction } from './pushes';
import { XML_LAYOUTS, type XmlLayout } from './push-format';

/** What `POST /__sim/users/:openid/:action` accepts: the openid, and each action's body. */
export const OPENID = /^[A-Za-z0-9_-]{1,128}$/;
const scene = z
  .union([
    z.string().min(1).max(64),
    z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1),
  ])
  .transform(String);
const common = {
  appId: z.string().min(1),
  repeat: z.number().int().min(1).max(10).default(1),
  concurrent: z.boolean().default(false),
  layout: z.enum(XML_LAYOUTS).default('compact'),
};
export const REQUESTS = {
  follow: z.object({ ...common, scene: scene.optional() }).strict(),
  unfollow: z.object(common).strict(),
  scan: z.object({ ...common, scene }).strict(),
  click: z.object({ ...common, key: z.string().min(1).max(128) }).strict(),
  message: z.object({ ...common, content: z.string().min(1).max(20_000) }).strict(),
  notice: z.object({ ...common, answers: noticeAnswersSchema }).strict(),
} as const;
export type PushRequest = {
  appId: string;
  repeat: number;
  concurrent: boolean;
  /** How an XML push is laid out (push-format.ts). */
  layout: XmlLayout;
  scene?: string;
  key?: string;
  content?: string;
  answers?: SimNoticeAnswer[];
};

/** The window event of each action; a notice popup opens no window. */
export const EVENTS: Readonly<Record<PushAction, FollowerEvent | null>> = {
  follow: 'subscribe',
  unfollow: 'unsubscribe',
  scan: 'scan',
  click: 'click',
  message: 'message',
  notice: null,
};
