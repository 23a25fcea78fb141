import { Router } from 'express';
import path from 'node:path';
import { buildOpenApiDocument, OPENAPI_PATH } from '../contract/openapi/build-document';
import { pageHeaders } from './page-headers';

/** Where the api process renders the contract for people. */
export const DOCS_PATH = '/docs';

/** Swagger UI's browser build, served from node_modules: the page loads nothing from elsewhere. */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js'] as const;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>wechat-drip API</title>
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css" />
  </head>
  <body>
    <div id="docs"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/docs.js"></script>
  </body>
</html>
`;

// A file of its own, not an inline script, so that the Content-Security-Policy can forbid inline scripts.
// No validator badge: it would send the document to a third party.
const START_SCRIPT = `SwaggerUIBundle({ url: ${JSON.stringify(OPENAPI_PATH)}, dom_id: '#docs', deepLinking: true, validatorUrl: null });\n`;

/**
 * `GET /v1/openapi.json`, the contract of /v1 as an OpenAPI 3.1 document, and `GET /docs`, the same
 * rendered by Swagger UI. Both are public: the contract holds no secret, and every route it describes
 * still needs the token (the page's "Authorize" takes it, to try routes out).
 */
export function createDocsRouter(): Router {
  const router = Router();
  const document = buildOpenApiDocument();
  router.get(OPENAPI_PATH, (_req, res) => {
    res.json(document);
  });
  // Swagger UI's icons are data: URIs in its stylesheet.
  router.use(DOCS_PATH, pageHeaders("'self' data:"));
  router.get(DOCS_PATH, (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get(`${DOCS_PATH}/docs.js`, (_req, res) => {
    res.type('text/javascript').send(START_SCRIPT);
  });
  for (const file of SWAGGER_UI_FILES) {
    router.get(`${DOCS_PATH}/${file}`, (_req, res) => {
      res.sendFile(path.join(SWAGGER_UI_DIR, file), { cacheControl: false });
    });
  }
  return router;
}
