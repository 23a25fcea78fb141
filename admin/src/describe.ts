import { h } from './dom.js';
import type { ExitCondition, InteractionKind, SequenceStatus, Trigger } from './types.js';

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
    case 'event':
      return `API event “${t.name}”`;
  }
}

/** An exit condition in marketing's words. */
export function describeExit(c: ExitCondition): string {
  switch (c.type) {
    case 'message':
      return c.keyword === undefined ? 'Any message' : `Message containing “${c.keyword}”`;
    case 'click':
      return `Menu click “${c.key}”`;
    case 'event':
      return `API event “${c.name}”`;
  }
}

/** A results key of `exited` (an exit's ledger reason, or `unsubscribed`) in marketing's words. */
export function exitLabel(reason: string): string {
  const [, type, param] = /^exit:(message|click|event)(?::(.*))?$/s.exec(reason) ?? [];
  if (type === 'message') return param === undefined ? 'Any message' : `Message containing “${param}”`;
  if (type === 'click') return `Menu click “${param}”`;
  if (type === 'event') return `API event “${param}”`;
  return reason === 'unsubscribed' ? 'Unfollowed' : reason;
}

/**
 * The interaction a trigger is, for the window rules (the API's `triggerKind`); null for an API event,
 * which opens no window.
 */
export function triggerKind(t: Trigger): InteractionKind | null {
  if (t.type === 'event') return null;
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
