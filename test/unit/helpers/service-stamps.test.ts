import { restartedServices, type ServiceStamps } from '../../helpers/service-stamps';

const before: ServiceStamps = {
  postgres: { startedAt: '2026-11-27 02:13:34.583599+00' },
  rabbitmq: { pid: 2951, startedAtTicks: 4680, listenerInode: 7658 },
};

describe('restartedServices', () => {
  it('finds nothing when both servers are the ones read before', () => {
    expect(restartedServices(before, structuredClone(before))).toEqual([]);
  });

  it('names a Postgres that started again, or that is down', () => {
    const later = { ...before, postgres: { startedAt: '2026-11-27 03:00:00+00' } };
    expect(restartedServices(before, later)).toEqual([
      'Postgres was restarted or stopped: started 2026-11-27 02:13:34.583599+00 before, 2026-11-27 03:00:00+00 after',
    ]);
    const down = { ...before, postgres: { error: 'connect ECONNREFUSED' } };
    expect(restartedServices(before, down)[0]).toMatch(/, connect ECONNREFUSED after$/);
  });

  it('names a RabbitMQ whose process changed, and one whose broker was stopped and started in place', () => {
    const newVm = { ...before, rabbitmq: { pid: 3100, startedAtTicks: 9000, listenerInode: 8000 } };
    expect(restartedServices(before, newVm)).toEqual([
      'RabbitMQ was restarted or stopped: pid 2951 before, 3100 after',
    ]);
    const reopened = { ...before, rabbitmq: { ...before.rabbitmq, listenerInode: 7700 } };
    expect(restartedServices(before, reopened)).toEqual([
      "RabbitMQ's broker was stopped and started (stop_app / start_app): its listening socket was reopened",
    ]);
  });

  it('does not judge a server that could not be read before', () => {
    const unread: ServiceStamps = { postgres: { error: 'remote' }, rabbitmq: { error: 'not this machine' } };
    expect(restartedServices(unread, before)).toEqual([]);
  });
});
