import { h } from './dom.js';
import { hasKey, t } from './i18n/index.js';
import type { InteractionKind, SequenceStatus, Trigger } from './types.js';

/** The trigger in marketing's words. */
export function describeTrigger(trigger: Trigger): string {
  const words = t().triggers;
  switch (trigger.type) {
    case 'subscribe':
      return trigger.scene ? words.followFrom(trigger.scene) : words.anyFollow;
    case 'scan':
      return words.scan(trigger.scene);
    case 'click':
      return words.click(trigger.key);
    case 'keyword':
      return words.keyword(trigger.keyword);
    case 'api':
      return words.api;
  }
}

/** The interaction a trigger is, for the window rules (the API's `triggerKind`); null for `api`. */
export function triggerKind(trigger: Trigger): InteractionKind | null {
  if (trigger.type === 'api') return null;
  return trigger.type === 'keyword' ? 'message' : trigger.type;
}

export function statusBadge(status: SequenceStatus): HTMLElement {
  return h('span', { class: `badge status-${status}`, 'data-status': status }, t().sequenceStatus[status]);
}

/** A message's status as a badge in words, its code kept in `data-status`. */
export function messageBadge(status: string): HTMLElement {
  const names = t().messageStatus;
  return h(
    'span',
    { class: `badge msg-${status}`, 'data-status': status },
    hasKey(names, status) ? names[status] : status,
  );
}

/** A code of the API (a reason, a kind) shown as it is, for people who look it up. */
export const codeOf = (code: string): HTMLElement => h('code', {}, code);

/** Why a message was skipped or failed: the API's reason code with its explanation, when there is one. */
export function reasonLabel(reason: string): HTMLElement {
  const reasons = t().reasons;
  const code = reason.replace(/^errcode[_:]?/, '');
  return h('span', {}, hasKey(reasons, code) ? `${reasons[code]} ` : null, codeOf(reason));
}

/** A msgtype in words ("文本", "news"), or the msgtype itself when the catalog has no name for it. */
export function msgtypeName(type: string): string {
  const names = t().msgtypes;
  return hasKey(names, type) ? names[type] : type;
}
