import { latenessOf, recoveryMs } from '../../helpers/timings';

const d = (dueAt: number, receivedAt: number) => ({ tag: `${dueAt}-${receivedAt}`, dueAt, receivedAt });

describe('cluster scenario timings', () => {
  it('lateness: p50, p99 and max of received − due, early deliveries counting as on time', () => {
    const deliveries = Array.from({ length: 100 }, (_, i) => d(1000, 1000 + i * 10));
    expect(latenessOf([...deliveries, d(5000, 4990)])).toEqual({ p50: 490, p99: 980, max: 990 });
    expect(latenessOf([])).toEqual({ p50: 0, p99: 0, max: 0 });
  });

  it('recovery: the longest stretch in which a message was due and nothing was delivered', () => {
    // Due every 100 ms from the fault (t = 0); nothing arrives from 300 to 2300, then the backlog drains.
    const stalled = [d(0, 10), d(100, 110), d(200, 210), d(300, 2300), d(400, 2301), d(2400, 2410)];
    expect(recoveryMs(stalled, 0)).toBe(2000);
    // A message due later but delivered first does not hide the stall of the earlier ones.
    expect(recoveryMs([d(1900, 1950), d(0, 2000)], 0)).toBe(1950);
    // Nothing due yet: waiting is not an outage.
    expect(recoveryMs([d(5000, 5040)], 0)).toBe(40);
    expect(recoveryMs([], 0)).toBe(0);
  });
});
