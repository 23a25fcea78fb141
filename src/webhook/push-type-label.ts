import type { Push } from '../wechat/push';

// User message types WeChat documents (reference/wechat.md §5.2).
const MESSAGE_TYPES = new Set(['text', 'image', 'voice', 'video', 'shortvideo', 'location', 'link']);
// Event types WeChat documents: follow, QR, location, menus, template / mass-send reports, subscription notices.
const EVENTS = new Set([
  'subscribe',
  'unsubscribe',
  'SCAN',
  'LOCATION',
  'CLICK',
  'VIEW',
  'scancode_push',
  'scancode_waitmsg',
  'pic_sysphoto',
  'pic_photo_or_album',
  'pic_weixin',
  'location_select',
  'view_miniprogram',
  'TEMPLATESENDJOBFINISH',
  'MASSSENDJOBFINISH',
  'subscribe_msg_popup_event',
  'subscribe_msg_change_event',
  'subscribe_msg_sent_event',
]);

/**
 * The `type` label of a push in metrics: the Event of an event, the MsgType of a message, or `other`.
 * A fixed set, because MsgType and Event are whatever the signed push says, and each new label value is
 * a new time series: one signed URL must not be able to mint them.
 */
export function pushTypeLabel(push: Push): string {
  if (push.msgType === 'event') return push.event !== null && EVENTS.has(push.event) ? push.event : 'other';
  return MESSAGE_TYPES.has(push.msgType) ? push.msgType : 'other';
}
