import { h } from './dom.js';
import { hasKey, t } from './i18n/index.js';
import type { ExitCondition, SequenceStatus, Trigger } from './types.js';

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
    case 'event':
      return words.event(trigger.name);
  }
}

/** An exit condition in marketing's words. */
export function describeExit(c: ExitCondition): string {
  const words = t().exits;
  switch (c.type) {
    case 'message':
      return c.keyword === undefined ? words.anyMessage : words.messageContaining(c.keyword);
    case 'click':
      return words.click(c.key);
    case 'event':
      return words.event(c.name);
  }
}

/** A results key of `exited` (an exit's ledger reason, or `unsubscribed`) in marketing's words. */
export function exitLabel(reason: string): string {
  const words = t().exits;
  const [, type, param] = /^exit:(message|click|event)(?::(.*))?$/s.exec(reason) ?? [];
  if (type === 'message') return param === undefined ? words.anyMessage : words.messageContaining(param);
  if (type === 'click') return words.click(param);
  if (type === 'event') return words.event(param);
  return reason === 'unsubscribed' ? words.unfollowed : reason;
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
