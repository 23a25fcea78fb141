import { call } from './support/http';
import { startWorld, type World } from './support/world';

let world: World;
beforeAll(async () => {
  world = await startWorld({ name: 'contract-document' });
}, 60_000);
afterAll(() => world?.close(), 30_000);

/** The URLs of the page's scripts, stylesheets and other linked files. */
const assetUrls = (html: string): string[] =>
  [...html.matchAll(/<(?:script|link|img|iframe)\b[^>]*?\b(?:src|href)="([^"]*)"/gi)].map((m) => m[1]);

describe('HTTP API', () => {
  describe('The contract document', () => {
    it('GET /v1/openapi.json answers an OpenAPI 3.1 document of /v1, without a token', async () => {
      const res = await call(`${world.api.url}/v1/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.openapi).toMatch(/^3\.1\./);
      expect(res.body.paths['/v1/messages'].post.requestBody.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/MessageRequest',
      });
      expect(res.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    });

    it('the routes it describes still need the token', async () => {
      const res = await call(`${world.api.url}/v1/accounts`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.objectContaining({ code: 'unauthorized' }) });
    });

    it('GET /docs answers an HTML page that loads only same-origin files, each of which is served', async () => {
      const page = await call(`${world.api.url}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-');
      // Every script is a file (no inline code), and nothing names another origin.
      expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
      const assets = assetUrls(page.text);
      expect(assets.length).toBeGreaterThanOrEqual(3);
      for (const asset of assets) {
        expect(new URL(asset, `${world.api.url}/docs`).origin).toBe(new URL(world.api.url).origin);
        const res = await call(new URL(asset, `${world.api.url}/docs`).href);
        expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
      }
    });
  });
});
