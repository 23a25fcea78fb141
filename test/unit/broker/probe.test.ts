import { classifyProbeError } from '../../../src/broker/probe';
import { AppError } from '../../../src/errors';

describe('classifyProbeError', () => {
  it('reads a 503 connection close (RabbitMQ ≤ 3.13.2) as plugin absent', () => {
    const rpc = new Error('Channel ended, no reply will be forthcoming');
    const conn = Object.assign(
      new Error(
        `Connection closed: 503 (COMMAND-INVALID) with message "COMMAND_INVALID - unknown exchange type 'x-delayed-message'"`,
      ),
      { code: 503 },
    );
    expect(classifyProbeError(rpc, conn)).toMatch(/^plugin absent \(503/);
  });

  it('reads a 406 channel close (RabbitMQ ≥ 3.13.3) as plugin absent', () => {
    const err = Object.assign(
      new Error(
        `Operation failed: ExchangeDeclare; 406 (PRECONDITION-FAILED) with message "PRECONDITION_FAILED - unknown exchange type 'x-delayed-message'"`,
      ),
      { code: 406 },
    );
    expect(classifyProbeError(err)).toMatch(/^plugin absent \(406/);
  });

  it('treats an x-delayed-type complaint as a configuration bug, not an absent plugin', () => {
    const err = new Error(
      `406 PRECONDITION_FAILED - Invalid argument, 'x-delayed-type' must be an existing exchange type`,
    );
    expect(() => classifyProbeError(err)).toThrow(AppError);
  });

  it('throws a retryable error for anything else (broker unreachable)', () => {
    try {
      classifyProbeError(new Error('connect ECONNREFUSED 127.0.0.1:5672'));
      throw new Error('expected a throw');
    } catch (err) {
      expect((err as AppError).retryable).toBe(true);
    }
  });
});
