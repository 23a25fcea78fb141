#!/usr/bin/env bash
# `make run`: migrate, start the WeChat simulator when configured to, then the service (api + worker).
# `make demo` (--demo): the same, then scripts/demo.js; DEMO_EXIT=1 stops everything once it is done.
set -euo pipefail
cd "$(dirname "$0")/.."

# The settings file: .env (ENV_FILE names another, as the tests do).
env_file=${ENV_FILE:-.env}
if [ ! -f "$env_file" ]; then
  token=$(node -e "process.stdout.write(require('crypto').randomBytes(24).toString('base64url'))")
  sed "s/^ADMIN_TOKEN=.*/ADMIN_TOKEN=${token}/" .env.example > "$env_file"
  echo "Created $env_file from .env.example with a fresh ADMIN_TOKEN."
fi
if ! grep -q '^ACCOUNTS_ENCRYPTION_KEY=.' "$env_file"; then
  key=$(node -e "process.stdout.write(require('crypto').randomBytes(32).toString('base64'))")
  sed -i.bak '/^ACCOUNTS_ENCRYPTION_KEY=/d' "$env_file" && rm -f "$env_file.bak"
  echo "ACCOUNTS_ENCRYPTION_KEY=${key}" >> "$env_file"
  echo "Added a fresh ACCOUNTS_ENCRYPTION_KEY to $env_file (it seals the accounts' secrets in Postgres)."
fi
# Settings: the environment wins, the file fills in what it does not set (as `npm start` reads .env).
environment=$(export -p)
set -a
# shellcheck disable=SC1090
. "$(dirname "$env_file")/$(basename "$env_file")"
set +a
eval "$environment" 2>/dev/null || true
# With the simulator, the URLs between the processes follow from the ports (scripts/lib/local-defaults.js).
eval "$(node scripts/lib/local-defaults.js)"

# The migrations' log lines go to the terminal only when something is wrong (the banner comes first).
LOG_LEVEL=warn node dist/main/migrate.js

# The processes run in sessions of their own, so that Ctrl-C (SIGINT to the terminal's foreground group)
# reaches this script alone, which then stops each of them with one SIGTERM and waits for its graceful stop.
own_session=()
command -v setsid >/dev/null && own_session=(setsid)
pids=()
formatter=
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  # The log formatter stops once its input ends: the processes' last lines are shown before the prompt.
  exec 3>&-
  [ -n "$formatter" ] && wait "$formatter" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The processes log to descriptor 3: this script's output as readable lines (LOG_FORMAT=json: the JSON they
# write), or — the demo draws a progress line — a file, in JSON.
logs=/dev/stdout
exec 3>&1
if [ "${1:-}" = "--demo" ]; then
  mkdir -p test-artifacts
  logs=test-artifacts/demo.log
  exec 3>"$logs"
  echo "Logs: $logs"
elif [ "${LOG_FORMAT:-lines}" != "json" ]; then
  exec 3> >(node scripts/lib/log-lines.js)
  formatter=$!
fi

if [ "${START_SIMULATOR:-false}" = "true" ]; then
  ${own_session[@]+"${own_session[@]}"} node dist/main/simulator.js >&3 &
  pids+=($!)
fi

${own_session[@]+"${own_session[@]}"} node dist/main/all.js >&3 &
service=$!
pids+=("$service")

api="http://${HTTP_HOST:-127.0.0.1}:${HTTP_PORT:-3000}"
ops="http://${OPS_HOST:-127.0.0.1}:${OPS_PORT:-3001}"
up=false
for _ in $(seq 1 150); do
  if curl -fsS "$api/healthz" >/dev/null 2>&1; then up=true && break; fi
  # A service that failed to start (its reason is the last log line) is not waited for.
  kill -0 "$service" 2>/dev/null || break
  sleep 0.2
done
if [ "$up" != "true" ]; then
  where="the log above"
  [ "$logs" != /dev/stdout ] && where="$logs"
  echo "wechat-drip did not start: $where says why." >&2
  exit 1
fi
cat <<MSG

  wechat-drip is running (Ctrl-C stops it)
    API          $api   (Authorization: Bearer \$ADMIN_TOKEN from .env)
    admin page   $api/admin/   (sign in with ADMIN_TOKEN from .env)
    health       $api/healthz   $api/readyz   (public port: ready or not, nothing more)
    ops          $ops/readyz   $ops/metrics   (detailed readiness, Prometheus)
MSG
if [ "${START_SIMULATOR:-false}" = "true" ]; then
  echo "    simulator    ${WECHAT_API_BASE_URL}   (what it received: ${WECHAT_API_BASE_URL}/__sim/messages)"
  # The simulated Open Platform pushes a component_verify_ticket every 10 minutes, as WeChat does; one now,
  # so that "Connect an official account" works at once.
  if [ -n "${WECHAT_COMPONENT_APP_ID:-}" ] &&
    curl -fsS -X POST "${WECHAT_API_BASE_URL}/__sim/component/ticket" >/dev/null 2>&1; then
    echo "    platform     ${WECHAT_COMPONENT_APP_ID}: ticket pushed; Accounts → Connect an official account"
  fi
fi
echo
if [ "${1:-}" = "--demo" ]; then
  node scripts/demo.js && status=0 || status=$?
  [ "${DEMO_EXIT:-0}" = "1" ] && exit "$status"
  echo "Still running; Ctrl-C stops it."
fi
wait -n "${pids[@]}"
