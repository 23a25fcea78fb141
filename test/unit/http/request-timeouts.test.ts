import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { applyRequestTimeouts } from '../../../src/http/request-timeouts';

describe('applyRequestTimeouts', () => {
  it("leaves Node's own check on when the server has no connections list (another Node version)", () => {
    const server = Object.assign(new EventEmitter(), { headersTimeout: 60_000, requestTimeout: 300_000 });
    applyRequestTimeouts(server as unknown as Server, 10_000, 30_000);
    server.emit('listening');
    expect({ headers: server.headersTimeout, request: server.requestTimeout }).toEqual({
      headers: 10_000,
      request: 30_000,
    });
  });

  it("turns Node's check off and runs its own where the list exists", () => {
    const expired = jest.fn(() => []);
    const list = Symbol('http.server.connections');
    const server = Object.assign(new EventEmitter(), {
      headersTimeout: 60_000,
      requestTimeout: 300_000,
      [list]: { expired },
    });
    jest.useFakeTimers();
    try {
      applyRequestTimeouts(server as unknown as Server, 10_000, 30_000);
      server.emit('listening');
      expect({ headers: server.headersTimeout, request: server.requestTimeout }).toEqual({
        headers: 0,
        request: 0,
      });
      jest.advanceTimersByTime(1000);
      expect(expired).not.toHaveBeenCalled(); // judged only after two polls of the sockets
      jest.runOnlyPendingTimers();
      jest.runOnlyPendingTimers();
      expect(expired).toHaveBeenCalledWith(10_000, 30_000);
      server.emit('close');
    } finally {
      jest.useRealTimers();
    }
  });
});
