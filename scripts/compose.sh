#!/usr/bin/env bash
# `make up`, `make down`, `make logs`: Docker Compose as this machine has it — the `docker compose` plugin
# (Compose v2), else the standalone `docker-compose` (Debian's docker.io comes without the plugin; its
# docker-compose package is 1.29) — on docker/compose.yaml, project wechat-drip.
set -euo pipefail
cd "$(dirname "$0")/.."
args=(-p wechat-drip -f docker/compose.yaml "$@")
if docker compose version >/dev/null 2>&1; then
  exec docker compose "${args[@]}"
elif command -v docker-compose >/dev/null 2>&1; then
  exec docker-compose "${args[@]}"
fi
echo "Docker Compose is missing: install the docker compose plugin, or docker-compose (Debian: apt install docker-compose)." >&2
exit 127
