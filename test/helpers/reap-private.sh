#!/usr/bin/env bash
# reap-private.sh ROOT wait OWNER: waits until test process OWNER is gone, then kills and removes every
#   private instance it started (started detached by test/helpers/private-instances.ts, so that a test
#   process that crashes or is killed leaves nothing running).
# reap-private.sh ROOT stale: does the same at once for every owner that is already gone.
# A private instance is a Postgres cluster whose data directory is under ROOT/OWNER/, or a RabbitMQ node
# named drip-OWNER-…@localhost. Nothing else is ever signalled: the machine's own services are not named.
set -uo pipefail
ROOT=$1
MODE=$2

alive() { kill -0 "$1" 2>/dev/null; }

# The Erlang VMs (and their helpers) of the nodes drip-OWNER-…, found by the name in their environment.
rabbit_pids() {
  grep -lsz "^RABBITMQ_NODENAME=drip-$1-" /proc/[0-9]*/environ | cut -d/ -f3
}

# Every postmaster whose data directory is under ROOT/OWNER (its postmaster.pid names it, and its own
# command line names the directory: a stale pid file never signals another process).
postmaster_pids() {
  local file pid
  for file in "$ROOT/$1"/*/data/postmaster.pid; do
    [ -f "$file" ] || continue
    pid=$(head -1 "$file")
    if [ -n "$pid" ] && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$(dirname "$file")"; then
      echo "$pid"
    fi
  done
}

reap() {
  local owner=$1 pid
  for pid in $(postmaster_pids "$owner"); do kill -QUIT "$pid" 2>/dev/null; done
  for pid in $(rabbit_pids "$owner"); do kill -KILL "$pid" 2>/dev/null; done
  for _ in $(seq 1 50); do
    [ -z "$(postmaster_pids "$owner")" ] && break
    sleep 0.2
  done
  for pid in $(postmaster_pids "$owner"); do kill -KILL "$pid" 2>/dev/null; done
  rm -rf "${ROOT:?}/$owner"
}

case $MODE in
  wait)
    OWNER=$3
    while alive "$OWNER"; do sleep 1; done
    reap "$OWNER"
    ;;
  stale)
    owners=$( (ls "$ROOT" 2>/dev/null; grep -lsz '^RABBITMQ_NODENAME=drip-[0-9]*-' /proc/[0-9]*/environ |
      xargs -r -n1 sh -c 'tr "\0" "\n" < "$0" | sed -n "s/^RABBITMQ_NODENAME=drip-\([0-9]*\)-.*/\1/p"') | sort -u)
    for owner in $owners; do
      case $owner in *[!0-9]*) continue ;; esac
      alive "$owner" || reap "$owner"
    done
    ;;
  *)
    echo "usage: $0 ROOT wait OWNER | $0 ROOT stale" >&2
    exit 2
    ;;
esac
