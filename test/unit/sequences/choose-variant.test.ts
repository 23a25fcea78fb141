import type { StepView } from '../../../src/contract';
import { chooseVariant } from '../../../src/sequences/choose-variant';

const text = (content: string) => ({ msgtype: 'text', text: { content } });
const variant = (name: string, weight: number) => ({ name, weight, message: text(name), fallback: null });
const abStep = (...variants: ReturnType<typeof variant>[]): StepView => ({ offsetMs: 0, variants });
const at = (openid: string, stepIndex = 0) => ({ sequenceId: 'seq-1', stepIndex, openid });

describe('chooseVariant', () => {
  it('gives a step without variants its own message and fallback', () => {
    const fallback = { template_id: 'tpl', data: {} };
    expect(chooseVariant({ offsetMs: 0, message: text('hi'), fallback }, at('o-1'))).toEqual({
      variant: null,
      message: text('hi'),
      fallback,
    });
  });

  it('gives a follower the same variant every time, also from a re-saved copy of the step', () => {
    const step = abStep(variant('A', 1), variant('B', 1));
    const resaved = JSON.parse(JSON.stringify(step)) as StepView;
    for (let i = 0; i < 100; i++) {
      const first = chooseVariant(step, at(`o-${i}`));
      expect(chooseVariant(resaved, at(`o-${i}`))).toEqual(first);
      expect(first.message).toEqual(text(first.variant!));
    }
  });

  it('honours the weights over 10,000 followers, within 2 points', () => {
    const step = abStep(variant('A', 1), variant('B', 3), variant('C', 6));
    const counts: Record<string, number> = { A: 0, B: 0, C: 0 };
    for (let i = 0; i < 10_000; i++) counts[chooseVariant(step, at(`oFollower${i}`)).variant!] += 1;
    expect(Math.abs(counts.A - 1_000)).toBeLessThan(200);
    expect(Math.abs(counts.B - 3_000)).toBeLessThan(200);
    expect(Math.abs(counts.C - 6_000)).toBeLessThan(200);
  });

  it('picks independently per step: a follower is not tied to one side across steps', () => {
    const step = abStep(variant('A', 1), variant('B', 1));
    const openids = Array.from({ length: 1_000 }, (_, i) => `o-${i}`);
    const same = openids.filter(
      (o) => chooseVariant(step, at(o, 0)).variant === chooseVariant(step, at(o, 1)).variant,
    );
    expect(same.length).toBeGreaterThan(400);
    expect(same.length).toBeLessThan(600);
  });
});
