// `make run` shows the processes' JSON logs as lines a person reads (scripts/lib/log-lines.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { formatLine } = require('../../../scripts/lib/log-lines') as { formatLine: (line: string) => string };

const line = (entry: Record<string, unknown>) =>
  JSON.stringify({ level: 30, time: '2026-11-28T15:24:10.524Z', pid: 7, ...entry });

describe('scripts/lib/log-lines.js', () => {
  it('shows the time, the process, the level and the message, then the other fields as key=value', () => {
    expect(
      formatLine(
        line({ role: 'wechat-drip-all', name: 'wechat-drip-all', msg: 'api listening', url: 'http://x:1' }),
      ),
    ).toBe('15:24:10.524 service INFO  api listening  url=http://x:1');
    expect(
      formatLine(
        line({ level: 40, role: 'wechat-drip-worker', msg: 'slow', connection: 'wechat-drip all', n: 2 }),
      ),
    ).toBe('15:24:10.524 worker WARN  slow  connection="wechat-drip all" n=2');
    expect(formatLine(line({ role: 'simulator', msg: 'stopped', ids: ['a'], none: null }))).toBe(
      '15:24:10.524 simulator INFO  stopped  ids=["a"] none=null',
    );
  });

  it("gives an error's message on its line and, from level error up, its stack below", () => {
    const err = {
      type: 'Error',
      message: 'connect ECONNREFUSED',
      stack: 'Error: connect ECONNREFUSED\n    at f (a.js:1:1)',
    };
    expect(formatLine(line({ level: 40, role: 'wechat-drip-api', msg: 'retrying', err }))).toBe(
      '15:24:10.524 api WARN  retrying  err="connect ECONNREFUSED"',
    );
    expect(formatLine(line({ level: 50, role: 'wechat-drip-api', msg: 'failed', err }))).toBe(
      '15:24:10.524 api ERROR failed  err="connect ECONNREFUSED"\n    at f (a.js:1:1)',
    );
  });

  it('passes anything that is not a log entry through unchanged', () => {
    for (const text of ['invalid configuration:', '{not json', '{"a":1}', '', '  - ADMIN_TOKEN: is required'])
      expect(formatLine(text)).toBe(text);
  });
});
