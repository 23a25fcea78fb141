import type { ExitCondition } from '../../../src/contract';
import { exitReason, matchExit } from '../../../src/sequences/exits';

const ANY_MESSAGE: ExitCondition = { type: 'message' };
const STOP: ExitCondition = { type: 'message', keyword: 'Stop' };
const TUIDING: ExitCondition = { type: 'message', keyword: '退订' };
const MENU: ExitCondition = { type: 'click', key: 'UNSUB' };
const PURCHASED: ExitCondition = { type: 'event', name: 'purchased' };

describe('matchExit', () => {
  it('any-message matches every user message, text or not', () => {
    expect(matchExit([ANY_MESSAGE], { type: 'message', text: 'hi' })).toBe(ANY_MESSAGE);
    expect(matchExit([ANY_MESSAGE], { type: 'message', text: null })).toBe(ANY_MESSAGE);
    expect(matchExit([ANY_MESSAGE], { type: 'click', key: 'UNSUB' })).toBeUndefined();
  });

  it('a keyword matches text containing it, ASCII letters in any case', () => {
    expect(matchExit([STOP], { type: 'message', text: 'please STOP now' })).toBe(STOP);
    expect(matchExit([STOP], { type: 'message', text: 'stopped' })).toBe(STOP);
    expect(matchExit([TUIDING], { type: 'message', text: '我要退订' })).toBe(TUIDING);
    expect(matchExit([STOP], { type: 'message', text: 'go on' })).toBeUndefined();
    expect(matchExit([STOP], { type: 'message', text: null })).toBeUndefined();
  });

  it('folds only ASCII: other scripts compare as written', () => {
    const greek: ExitCondition = { type: 'message', keyword: 'ΣΤΟΠ' };
    expect(matchExit([greek], { type: 'message', text: 'στοπ' })).toBeUndefined();
    expect(matchExit([greek], { type: 'message', text: 'ΣΤΟΠ' })).toBe(greek);
  });

  it('a click matches its menu key exactly, an event its name exactly', () => {
    expect(matchExit([MENU], { type: 'click', key: 'UNSUB' })).toBe(MENU);
    expect(matchExit([MENU], { type: 'click', key: 'unsub' })).toBeUndefined();
    expect(matchExit([PURCHASED], { type: 'event', name: 'purchased' })).toBe(PURCHASED);
    expect(matchExit([PURCHASED], { type: 'event', name: 'Purchased' })).toBeUndefined();
    expect(matchExit([PURCHASED], { type: 'message', text: 'purchased' })).toBeUndefined();
  });

  it('answers the first condition in the list that matches', () => {
    expect(matchExit([TUIDING, ANY_MESSAGE], { type: 'message', text: '退订' })).toBe(TUIDING);
    expect(matchExit([ANY_MESSAGE, TUIDING], { type: 'message', text: '退订' })).toBe(ANY_MESSAGE);
  });
});

describe('exitReason', () => {
  it('names the condition for the ledger and the results', () => {
    expect([ANY_MESSAGE, STOP, TUIDING, MENU, PURCHASED].map(exitReason)).toEqual([
      'exit:message',
      'exit:message:stop',
      'exit:message:退订',
      'exit:click:UNSUB',
      'exit:event:purchased',
    ]);
  });
});
