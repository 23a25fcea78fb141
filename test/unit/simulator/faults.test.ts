import { createFaults, parseFaultSpec, type FaultSpec } from '../../../src/simulator/faults';

const specOf = (input: object): FaultSpec => {
  const parsed = parseFaultSpec(input);
  if ('problems' in parsed) throw new Error(parsed.problems.join('; '));
  return parsed.spec;
};

describe('faults limited to one send API', () => {
  it('fault only the sends of their channel, and count only those against `count`', () => {
    const faults = createFaults();
    faults.set(specOf({ forceErrcode: 43116, channel: 'template', count: 1 }));
    expect(faults.next('custom')).toEqual({ kind: 'none', latencyMs: 0 });
    expect(faults.next('notice')).toEqual({ kind: 'none', latencyMs: 0 });
    expect(faults.next('template')).toEqual({ kind: 'error', errcode: 43116, latencyMs: 0 });
    expect(faults.next('template')).toEqual({ kind: 'none', latencyMs: 0 });
  });

  it('fault every send without a channel, as before', () => {
    const faults = createFaults();
    faults.set(specOf({ forceErrcode: -1 }));
    expect(faults.next('custom')).toMatchObject({ kind: 'error', errcode: -1 });
    expect(faults.next('template')).toMatchObject({ kind: 'error', errcode: -1 });
  });

  it('refuse a channel that is not a send API, naming the field', () => {
    expect(parseFaultSpec({ forceErrcode: 43116, channel: 'mass' })).toEqual({
      problems: [expect.stringMatching(/^channel: /)],
    });
  });
});
