import type { WaitCondition } from '../contract/journeys';

/**
 * What a follower did that an exit or a wait may be watching for: a user message (`text` null for one
 * without text), a menu click, a QR scan, or an event another system posted.
 */
export type FollowerAction =
  | { readonly type: 'message'; readonly text: string | null }
  | { readonly type: 'click'; readonly key: string }
  | { readonly type: 'scan'; readonly scene: string }
  | {
      readonly type: 'event';
      readonly name: string;
      /** The variables it gave values (`vars`), by name. */
      readonly vars?: readonly string[];
    };

/**
 * Lower case for ASCII letters only: `STOP` matches `stop`, while other scripts compare as written (full
 * Unicode case folding changes lengths and differs by locale; Chinese has no case).
 */
export function lowerAscii(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * Whether the action meets a condition (an exit's or a wait's): any user message, or one whose text
 * contains the keyword (ASCII letters in any case); a click on the key; a scan of the scene; the event; a
 * posted event giving the variable a value (a variable set before the wait is the timeouts pass's).
 */
export function meetsCondition(condition: WaitCondition, action: FollowerAction): boolean {
  switch (condition.type) {
    case 'message':
      if (action.type !== 'message') return false;
      if (condition.keyword === undefined) return true;
      return action.text !== null && lowerAscii(action.text).includes(lowerAscii(condition.keyword));
    case 'click':
      return action.type === 'click' && action.key === condition.key;
    case 'scan':
      return action.type === 'scan' && action.scene === condition.scene;
    case 'event':
      return action.type === 'event' && action.name === condition.name;
    case 'var':
      return action.type === 'event' && (action.vars ?? []).includes(condition.name);
  }
}
