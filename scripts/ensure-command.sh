#!/usr/bin/env bash
# `ensure-command.sh COMMAND PACKAGE`: installs the Debian package PACKAGE when COMMAND is missing (tests
# that need a tool call this: promtool for the metrics checks, iptables for the cluster partition).
set -euo pipefail
command="$1"
package="$2"
command -v "$command" >/dev/null 2>&1 && exit 0
if [ "$(id -u)" != "0" ]; then
  echo "$command is missing; install the Debian package '$package' (needs root)" >&2
  exit 1
fi
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$package" >/dev/null
command -v "$command" >/dev/null
