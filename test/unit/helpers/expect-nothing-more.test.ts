import { expectNothingMore } from '../../helpers/expect-nothing-more';

describe('expectNothingMore', () => {
  it('resolves after the whole window when nothing happened, having looked more than once', async () => {
    let looks = 0;
    const started = Date.now();
    await expectNothingMore('resend', () => (looks++, false), 120, 20);
    expect(Date.now() - started).toBeGreaterThanOrEqual(120);
    expect(looks).toBeGreaterThan(2);
  });

  it('fails as soon as it happens, naming what was not expected', async () => {
    const started = Date.now();
    const happensAt = started + 60;
    await expect(
      expectNothingMore('second reminder', () => Date.now() >= happensAt, 5000, 10),
    ).rejects.toThrow('expected no second reminder within 5000 ms, but there was');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
