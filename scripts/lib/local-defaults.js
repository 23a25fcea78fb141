// Settings a local run derives from the ports, so that moving a port is one edit of .env: with
// START_SIMULATOR=true (make run, or npm start beside npm run simulator), each of these that neither the
// environment nor .env sets follows from HTTP_HOST/HTTP_PORT and SIM_HOST/SIM_PORT.
// `node scripts/lib/local-defaults.js` prints them as shell exports (scripts/run-local.sh evaluates them).

/** The derived settings missing from `env` (unset or empty), as an object; none without the simulator. */
function localDefaults(env) {
  if (env.START_SIMULATOR !== 'true') return {};
  const set = (name) => env[name] !== undefined && env[name] !== '';
  const api = `http://${env.HTTP_HOST || '127.0.0.1'}:${env.HTTP_PORT || '3000'}`;
  const sim = set('WECHAT_API_BASE_URL')
    ? env.WECHAT_API_BASE_URL
    : `http://${env.SIM_HOST || '127.0.0.1'}:${env.SIM_PORT || '4100'}`;
  const derived = {
    OPS_PORT: String(Number(env.HTTP_PORT || '3000') + 1),
    SIM_WEBHOOK_URL: api,
    WECHAT_API_BASE_URL: sim,
    ...(set('WECHAT_COMPONENT_APP_ID')
      ? { WECHAT_COMPONENT_LOGIN_PAGE_URL: `${sim}/cgi-bin/componentloginpage` }
      : {}),
  };
  return Object.fromEntries(Object.entries(derived).filter(([name]) => !set(name)));
}

/** Sets the derived settings `env` lacks, in place. */
function applyLocalDefaults(env) {
  Object.assign(env, localDefaults(env));
  return env;
}

if (require.main === module) {
  for (const [name, value] of Object.entries(localDefaults(process.env)))
    process.stdout.write(`export ${name}='${value.replace(/'/g, `'\\''`)}'\n`);
}

module.exports = { localDefaults, applyLocalDefaults };
