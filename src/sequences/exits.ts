import type { ExitCondition } from '../contract';
import { type FollowerAction, lowerAscii, meetsCondition } from './follower-actions';

/** The first of `exits` the follower's action meets (a scan meets none), or undefined. */
export function matchExit(exits: readonly ExitCondition[], event: FollowerAction): ExitCondition | undefined {
  return exits.find((condition) => meetsCondition(condition, event));
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
