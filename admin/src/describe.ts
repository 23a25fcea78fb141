import { h } from './dom.js';
import type { InteractionKind, SequenceStatus, Trigger } from './types.js';

/** The trigger in marketing's words. */
export function describeTrigger(t: Trigger): string {
  switch (t.type) {
    case 'subscribe':
      return t.scene ? `Follow from QR code “${t.scene}”` : 'Any follow';
    case 'scan':
      return `Scan of QR code “${t.scene}”`;
    case 'click':
      return `Menu click “${t.key}”`;
    case 'keyword':
      return `Message containing “${t.keyword}”`;
    case 'api':
      return 'Only through the API (POST …/enrollments)';
  }
}

/** The interaction a trigger is, for the window rules (the API's `triggerKind`); null for `api`. */
export function triggerKind(t: Trigger): InteractionKind | null {
  if (t.type === 'api') return null;
  return t.type === 'keyword' ? 'message' : t.type;
}

export const KIND_LABEL: Record<InteractionKind, string> = {
  message: 'a user message',
  subscribe: 'a follow',
  scan: 'a QR scan',
  click: 'a menu click',
};

export function statusBadge(status: SequenceStatus): HTMLElement {
  return h('span', { class: `badge status-${status}` }, status);
}

/** Why a message was skipped or failed, explained next to the API's reason code. */
const REASONS: Record<string, string> = {
  window_closed: 'contact window closed',
  unsubscribed: 'follower left',
  stale: 'too late to be useful',
  '45015': 'outside the window (WeChat)',
  '45047': 'over the window’s count (WeChat)',
  '43004': 'not a follower (WeChat)',
  '45009': 'daily quota reached',
  '40003': 'invalid openid',
};

export function reasonLabel(reason: string): string {
  const code = reason.replace(/^errcode[_:]?/, '');
  const words = REASONS[code];
  return words ? `${reason} (${words})` : reason;
}
