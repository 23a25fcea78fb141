import type { ExitCondition } from '../contract';

/** What a follower did that may end their enrollments: a user message, a menu click, or a posted event. */
export type ExitEvent =
  | { readonly type: 'message'; readonly text: string | null }
  | { readonly type: 'click'; readonly key: string }
  | { readonly type: 'event'; readonly name: string };

/**
 * Lower case for ASCII letters only: `STOP` matches `stop`, while other scripts compare as written (full
 * Unicode case folding changes lengths and differs by locale; Chinese has no case).
 */
export function lowerAscii(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function matches(condition: ExitCondition, event: ExitEvent): boolean {
  switch (condition.type) {
    case 'message':
      if (event.type !== 'message') return false;
      if (condition.keyword === undefined) return true;
      return event.text !== null && lowerAscii(event.text).includes(lowerAscii(condition.keyword));
    case 'click':
      return event.type === 'click' && event.key === condition.key;
    case 'event':
      return event.type === 'event' && event.name === condition.name;
  }
}

/** The first of `exits` the event meets, or undefined. */
export function matchExit(exits: readonly ExitCondition[], event: ExitEvent): ExitCondition | undefined {
  return exits.find((condition) => matches(condition, event));
}

/**
 * The condition as a ledger reason and a results key: `exit:message` (any message),
 * `exit:message:<keyword>`, `exit:click:<key>`, `exit:event:<name>`. Two conditions of one sequence never
 * share it (the schema refuses duplicates).
 */
export function exitReason(condition: ExitCondition): string {
  switch (condition.type) {
    case 'message':
      return condition.keyword === undefined
        ? 'exit:message'
        : `exit:message:${lowerAscii(condition.keyword)}`;
    case 'click':
      return `exit:click:${condition.key}`;
    case 'event':
      return `exit:event:${condition.name}`;
  }
}
