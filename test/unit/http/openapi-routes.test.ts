import { loadConfig } from '../../../src/config';
import { buildOpenApiDocument, openApiPath } from '../../../src/contract/openapi/build-document';
import { type AppDeps, createApp } from '../../../src/http/create-app';
import { aPlatform } from '../../helpers/platform';
import { silentLogger } from '../../helpers/logger';

/** What the walk reads of express 5's router layers: each keeps the path it was mounted at as `rawPath`. */
interface Layer {
  readonly rawPath?: string;
  readonly route?: { readonly path: string; readonly methods: Readonly<Record<string, boolean>> };
  readonly handle: { readonly stack?: readonly Layer[] };
}

/** `METHOD /path` for every route in `stack` and the routers mounted in it, at their full path. */
function servedRoutes(stack: readonly Layer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const path = `${prefix}${layer.route.path}`.replace(/(.)\/$/, '$1');
      return Object.keys(layer.route.methods).map((method) => `${method.toUpperCase()} ${path}`);
    }
    const mountedAt = layer.rawPath === '/' || layer.rawPath === undefined ? '' : layer.rawPath;
    return layer.handle.stack ? servedRoutes(layer.handle.stack, `${prefix}${mountedAt}`) : [];
  });
}

/** A dependency that building the routes must leave alone: any use of it throws, naming it. */
const untouched = <T extends object>(name: string): T =>
  new Proxy({} as T, {
    get: (_target, property) => {
      throw new Error(`${name}.${String(property)} was used while the routes were built`);
    },
  });

/** The app as the api process builds it, with the third-party platform configured: every route exists. */
function anApp() {
  const config = loadConfig({
    ADMIN_TOKEN: 'a-very-long-admin-token',
    WECHAT_ACCOUNTS: '[]',
    ACCOUNTS_ENCRYPTION_KEY: Buffer.alloc(32, 'routes').toString('base64'),
    ...aPlatform().env,
  });
  const deps: AppDeps = {
    config,
    logger: silentLogger,
    connect: untouched('connect'),
    accounts: untouched('accounts'),
    keys: untouched('keys'),
    box: untouched('box'),
    pool: untouched('pool'),
    publisher: untouched('publisher'),
    metrics: untouched('metrics'),
    writer: untouched('writer'),
    templates: untouched('templates'),
    qrcodes: untouched('qrcodes'),
    media: untouched('media'),
    track: () => undefined,
    readiness: untouched('readiness'),
    processPushLater: () => undefined,
    exchangeCodeLater: () => undefined,
  };
  return createApp(deps);
}

describe('the OpenAPI document and the routes the app serves', () => {
  const served = servedRoutes(anApp().router.stack as unknown as Layer[])
    .filter((route) => route.split(' ')[1].startsWith('/v1/'))
    .map((route) => openApiPath(route))
    .sort();
  const described = Object.entries(buildOpenApiDocument().paths)
    .flatMap(([path, operations]) => Object.keys(operations).map((m) => `${m.toUpperCase()} ${path}`))
    .sort();

  it('finds the routes of every /v1 router, mounted where the app mounts them', () => {
    expect(served).toEqual(
      expect.arrayContaining([
        'POST /v1/messages',
        'GET /v1/openapi.json',
        'PATCH /v1/accounts/{appId}',
        'POST /v1/sequences/{id}/{action}',
        'POST /v1/platform/authorizations',
      ]),
    );
  });

  it('describes every route the app serves under /v1, with its method and path', () => {
    expect(served.filter((route) => !described.includes(route))).toEqual([]);
  });

  it('describes no route the app lacks, and each one once', () => {
    expect(described.filter((route) => !served.includes(route))).toEqual([]);
    expect(described).toEqual(served);
  });
});
