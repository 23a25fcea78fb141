#!/usr/bin/env bash
# Installs Prometheus's promtool (Debian package `prometheus`) when missing: the metrics tests run
# `promtool check metrics` on the service's /metrics output.
set -euo pipefail
command -v promtool >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != "0" ]; then
  echo "promtool is missing; install the Debian package 'prometheus' (needs root)" >&2
  exit 1
fi
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
command -v promtool >/dev/null
