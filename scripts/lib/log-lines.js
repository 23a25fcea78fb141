// `make run` shows the processes' JSON logs as lines a person reads at a terminal:
//   15:22:49.209 service INFO  api listening  url=http://127.0.0.1:3000
// The service itself always writes JSON (`npm start`, containers); LOG_FORMAT=json make run shows it as is.
// `node scripts/lib/log-lines.js` filters stdin to stdout until stdin ends: the processes it formats
// outlive a Ctrl-C by their graceful stop, so it ignores SIGINT and SIGTERM and stops with its input.

const LEVELS = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
/** Fields every line has, shown in its head or not at all. */
const HEAD = new Set(['level', 'time', 'pid', 'role', 'name', 'msg', 'hostname', 'v']);
/** A process by the name it logs (wechat-drip-all, -api, -worker, -migrate; simulator): api, worker, … */
const roleOf = (role) => (role === 'wechat-drip-all' ? 'service' : String(role).replace(/^wechat-drip-/, ''));

/** A value as `key=value` shows it: strings bare unless they hold spaces, the rest as JSON. */
function show(value) {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/** One line of output: a pino JSON line formatted, anything else unchanged. */
function formatLine(line) {
  if (!line.startsWith('{')) return line;
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof entry !== 'object' || entry === null || typeof entry.level !== 'number') return line;
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
  const role = roleOf(entry.role ?? entry.name ?? '');
  const level = LEVELS[entry.level] ?? String(entry.level);
  const { err, ...rest } = entry;
  const fields = Object.entries(rest)
    .filter(([key]) => !HEAD.has(key))
    .map(([key, value]) => `${key}=${show(value)}`);
  const head = [time, role, level, entry.msg ?? ''].filter((part) => part !== '').join(' ');
  const text = fields.length ? `${head}  ${fields.join(' ')}` : head;
  if (!err || typeof err !== 'object') return text;
  // An error: its message on the line, its stack (for errors and worse) indented below.
  const withError = `${text}  err=${show(err.message ?? err.type ?? err)}`;
  return entry.level >= 50 && typeof err.stack === 'string'
    ? `${withError}\n${err.stack
        .split('\n')
        .slice(1)
        .map((l) => `    ${l.trim()}`)
        .join('\n')}`
    : withError;
}

module.exports = { formatLine };

if (require.main === module) {
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);
  const lines = require('node:readline').createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => process.stdout.write(`${formatLine(line)}\n`));
}
