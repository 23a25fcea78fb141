#!/usr/bin/env bash
# `make run`: migrate, start the WeChat simulator when configured to, then the service (api + worker).
# `make demo` (--demo): the same, then scripts/demo.js; DEMO_EXIT=1 stops everything once it is done.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f .env ]; then
  token=$(node -e "process.stdout.write(require('crypto').randomBytes(24).toString('base64url'))")
  sed "s/^ADMIN_TOKEN=.*/ADMIN_TOKEN=${token}/" .env.example > .env
  echo "Created .env from .env.example with a fresh ADMIN_TOKEN."
fi
if ! grep -q '^ACCOUNTS_ENCRYPTION_KEY=.' .env; then
  key=$(node -e "process.stdout.write(require('crypto').randomBytes(32).toString('base64'))")
  sed -i.bak '/^ACCOUNTS_ENCRYPTION_KEY=/d' .env && rm -f .env.bak
  echo "ACCOUNTS_ENCRYPTION_KEY=${key}" >> .env
  echo "Added a fresh ACCOUNTS_ENCRYPTION_KEY to .env (it seals the accounts' secrets in Postgres)."
fi
set -a
# shellcheck disable=SC1091
. ./.env
set +a

node dist/main/migrate.js

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# The demo draws a progress line: its processes log to files instead of the terminal.
logs=/dev/stdout
if [ "${1:-}" = "--demo" ]; then
  mkdir -p test-artifacts
  logs=test-artifacts/demo.log
  : > "$logs"
  echo "Logs: $logs"
fi

if [ "${START_SIMULATOR:-false}" = "true" ]; then
  node dist/main/simulator.js >> "$logs" &
  pids+=($!)
fi

node dist/main/all.js >> "$logs" &
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
