#!/usr/bin/env bash
# The broker with the delayed-message plugin for the plugin-mode tests and the bench's plugin row.
# When this machine has the workplace's start script (PLUGIN_BROKER_START, else shared/plugin-broker/start.sh
# beside the repository, one level further up, or under /work), starts it — idempotent: node plugin@localhost on 127.0.0.1:5673,
# never the node on 5672 — and prints the environment the tests read, as `export` lines for `eval`:
#   RABBITMQ_PLUGIN_URL          the plugin broker (plugin-mode integration, acceptance, slow tests, bench)
#   RABBITMQ_DELAYED_PLUGIN_DIR  the plugin it built (the fault suite enables it on its private node)
# Prints nothing when there is no such script, when it fails, or when RABBITMQ_PLUGIN_URL is already set
# (yours is used): the plugin-mode tests then skip and say so. What it says goes to stderr and to
# test-artifacts/plugin-broker.log.
set -uo pipefail
cd "$(dirname "$0")/.."
start=${PLUGIN_BROKER_START:-}
if [ -z "$start" ]; then
  for candidate in ../shared ../../shared /work/shared; do
    if [ -x "$candidate/plugin-broker/start.sh" ]; then start=$candidate/plugin-broker/start.sh; break; fi
  done
fi
dir=${PLUGIN_BROKER_DIR:-/tmp/drip-plugin-broker}
log=test-artifacts/plugin-broker.log

if [ -n "${RABBITMQ_PLUGIN_URL:-}" ]; then
  echo "plugin broker: using RABBITMQ_PLUGIN_URL=${RABBITMQ_PLUGIN_URL%%@*}@… as given" >&2
  exit 0
fi
if [ -z "$start" ] || [ ! -x "$start" ]; then
  echo "plugin broker: no shared/plugin-broker/start.sh found (PLUGIN_BROKER_START); plugin-mode tests will be skipped" >&2
  exit 0
fi
mkdir -p test-artifacts
if ! PLUGIN_BROKER_DIR=$dir "$start" up >"$log" 2>&1; then
  echo "plugin broker: $start failed (see $log); plugin-mode tests will be skipped:" >&2
  tail -5 "$log" >&2
  exit 0
fi
echo "plugin broker: plugin@localhost on 127.0.0.1:5673 with the delayed-message plugin ($start)" >&2
echo "export RABBITMQ_PLUGIN_URL=amqp://guest:guest@127.0.0.1:5673"
[ -n "${RABBITMQ_DELAYED_PLUGIN_DIR:-}" ] || echo "export RABBITMQ_DELAYED_PLUGIN_DIR=$dir/plugins"
