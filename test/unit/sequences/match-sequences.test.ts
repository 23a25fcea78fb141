import { matchSequences } from '../../../src/sequences/enroll';
import type { Trigger } from '../../../src/contract';
import type { Sequence } from '../../../src/store/sequence-store';

const seq = (name: string, trigger: Trigger): Sequence => ({
  id: name,
  appId: 'wx1',
  name,
  status: 'active',
  version: 1,
  oncePerFollower: false,
  trigger,
  steps: [],
  wait: null,
  goal: null,
  paths: {},
  exits: [],
  quietHours: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

const active = [
  seq('generic', { type: 'subscribe' }),
  seq('spring', { type: 'subscribe', scene: 'spring' }),
  seq('booth', { type: 'scan', scene: 'booth' }),
  seq('menu', { type: 'click', key: 'MENU_A' }),
  seq('course', { type: 'keyword', keyword: 'Course' }),
  seq('signup', { type: 'event', name: 'course_signup' }),
];
const names = (event: Parameters<typeof matchSequences>[1]) =>
  matchSequences(active, event).map((s) => s.name);

describe('matchSequences', () => {
  it('starts the scene sequence, not the generic one, for a follow from that QR code', () => {
    expect(names({ type: 'subscribe', scene: 'spring' })).toEqual(['spring']);
  });

  it('starts the generic follow sequence for a follow without a matching scene', () => {
    expect(names({ type: 'subscribe', scene: null })).toEqual(['generic']);
    expect(names({ type: 'subscribe', scene: 'autumn' })).toEqual(['generic']);
  });

  it('matches scans, menu keys and keywords (case-insensitively, anywhere in the message)', () => {
    expect(names({ type: 'scan', scene: 'booth' })).toEqual(['booth']);
    expect(names({ type: 'click', key: 'MENU_A' })).toEqual(['menu']);
    expect(names({ type: 'message', text: 'which course starts soon?' })).toEqual(['course']);
    expect(names({ type: 'message', text: 'hello' })).toEqual([]);
  });

  it('starts an event sequence on a posted event of that name only', () => {
    expect(names({ type: 'event', name: 'course_signup' })).toEqual(['signup']);
    expect(names({ type: 'event', name: 'purchased' })).toEqual([]);
    expect(names({ type: 'message', text: 'course_signup' })).toEqual(['course']);
  });
});
