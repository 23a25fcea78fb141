import express from 'express';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createAdminRouter } from '../../src/http/admin-routes';

// The router on its own, over a stand-in build, mounted as create-app mounts it.
let server: Server;
let base = '';
const root = mkdtempSync(path.join(tmpdir(), 'admin-build-'));
const missing = path.join(root, 'not-built');

beforeAll(async () => {
  mkdirSync(path.join(root, 'app'));
  writeFileSync(path.join(root, 'app/index.html'), '<!doctype html><title>app</title>');
  writeFileSync(path.join(root, 'app/main.js'), 'export {};');
  const app = express();
  app.use('/admin', createAdminRouter({ root: path.join(root, 'app') }));
  app.use('/unbuilt', createAdminRouter({ root: missing }));
  app.use((_req, res) => res.status(404).json({ error: { code: 'not_found' } }));
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(root, { recursive: true, force: true });
});

const get = (p: string) => fetch(base + p, { redirect: 'manual' });

describe('createAdminRouter', () => {
  it('serves the app with a strict Content-Security-Policy and no-cache', async () => {
    const res = await get('/admin/');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<title>app</title>');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('serves modules as JavaScript', async () => {
    const res = await get('/admin/main.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers a deep link with index.html (the app routes in the browser)', async () => {
    const res = await get('/admin/sequences/0b7c4a52-1111-4222-8333-944455556666/edit?x=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).toContain('<title>app</title>');
  });

  it('leaves a missing asset a 404 rather than answering it with the page', async () => {
    expect((await get('/admin/nope.js')).status).toBe(404);
  });

  it('redirects /admin to /admin/ so relative URLs resolve under the mount', async () => {
    const res = await get('/admin?x=1');
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe('/admin/?x=1');
  });

  it('says how to build the app when dist/admin is missing', async () => {
    const res = await get('/unbuilt/');
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('npm run build');
  });
});
