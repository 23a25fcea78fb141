// Shared by the scripts that talk to a running `make run`: its settings from the environment or .env.
const fs = require('node:fs');
const { applyLocalDefaults } = require('./local-defaults');

function readDotEnv() {
  if (!fs.existsSync('.env')) return [];
  return fs
    .readFileSync('.env', 'utf8')
    .split('\n')
    .map((l) => /^([A-Z0-9_]+)=(.*)$/.exec(l.trim()))
    .filter(Boolean)
    .map(([, k, v]) => [k, v.replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1')]);
}

/** `{ env, api, sim, appId, adminToken }` of the local instance (environment wins over .env). */
function localInstance() {
  const env = applyLocalDefaults({ ...Object.fromEntries(readDotEnv()), ...process.env });
  return {
    env,
    api: `http://${env.HTTP_HOST || '127.0.0.1'}:${env.HTTP_PORT || 3000}`,
    sim: env.WECHAT_API_BASE_URL || 'http://127.0.0.1:4100',
    appId: env.WECHAT_ACCOUNTS ? JSON.parse(env.WECHAT_ACCOUNTS)[0]?.appId : undefined,
    adminToken: env.ADMIN_TOKEN,
  };
}

/**
 * Exits with a sentence a newcomer can act on when nothing answers at `api` (rather than `fetch failed`):
 * the checks run against a `make run` started in another terminal.
 */
async function requireRunning(api) {
  const up = await fetch(`${api}/healthz`).then(
    (r) => r.ok,
    () => false,
  );
  if (up) return;
  console.error(
    `Nothing answers at ${api}: start the service first with \`make run\` in another terminal (it reads .env; HTTP_HOST and HTTP_PORT say where it listens).`,
  );
  process.exit(1);
}

module.exports = { localInstance, requireRunning };
