/**
 * A listener whose event loop is too busy to read for longer than its headers timeout (a burst of requests
 * on a loaded machine) still answers every request it accepted: the timeouts judge the client, not the
 * server's own lateness (src/http/request-timeouts.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import express from 'express';
import { listen, type Listening } from '../../src/http/listen';

/** Sends `n` requests at once from another process, one connection each; counts the outcomes. */
const CLIENT = `
const net = require('node:net');
const [port, n] = process.argv.slice(1).map(Number);
const request = 'POST / HTTP/1.1\\r\\nHost: x\\r\\nContent-Type: application/json\\r\\nContent-Length: 7\\r\\n\\r\\n{"a":1}';
const one = () => new Promise((resolve) => {
  let got = '';
  const s = net.connect(port, '127.0.0.1', () => s.write(request));
  s.on('data', (d) => { got += d; if (got.includes('\\r\\n\\r\\n')) { resolve('HTTP ' + got.slice(9, 12)); s.destroy(); } });
  s.on('error', (e) => resolve(e.code));
  s.on('close', () => resolve('closed unanswered'));
});
Promise.all(Array.from({ length: n }, one)).then((outcomes) => {
  const counts = {};
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
  console.log(JSON.stringify(counts));
});
`;

let listening: Listening;
afterAll(() => listening?.close());

it('a burst that keeps the server busy for several headers timeouts is answered in full, none cut with 408 or closed', async () => {
  const app = express();
  // Each request holds the event loop for 10 ms: 600 of them keep it from reading for seconds on end.
  app.post('/', (_req, res) => {
    const until = Date.now() + 10;
    while (Date.now() < until);
    res.json({ ok: true });
  });
  listening = await listen(app, '127.0.0.1', 0, {
    httpHeadersTimeoutMs: 1000,
    httpRequestTimeoutMs: 2000,
    httpKeepAliveTimeoutMs: 65_000,
    httpMaxConnections: 10_000,
  });
  const { port } = new URL(listening.url);
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', CLIENT, port, '600']);
  expect(JSON.parse(stdout)).toEqual({ 'HTTP 200': 600 });
}, 60_000);
