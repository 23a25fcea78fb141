#!/usr/bin/env bash
# Browser tests drive Debian's Chromium (the distro's build and security updates, no browser download)
# and screenshot Chinese text, which needs a CJK font. Installs what is missing; silent when all is there.
set -euo pipefail

CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
packages=()
[ -x "$CHROMIUM_PATH" ] || packages+=(chromium)
# WenQuanYi Micro Hei: 1.6 MB, against 56 MB for Noto CJK; enough for screenshots to show 中文.
if ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list :lang=zh family 2>/dev/null)" ]; then
  packages+=(fonts-wqy-microhei)
fi
[ ${#packages[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: missing ${packages[*]} and there is no apt-get; install them (or set CHROMIUM_PATH)" >&2
  exit 1
fi
# apt-get needs root: sudo when we are not root and it works without a prompt.
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then as_root=(sudo -n); else
    echo "ensure-chromium: not root and no sudo; run: apt-get update && apt-get install -y ${packages[*]}" >&2
    exit 1
  fi
fi

echo "ensure-chromium: installing ${packages[*]} (once)" >&2
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Quiet unless it fails; then apt's own words explain why.
if ! { "${as_root[@]}" apt-get update -qq &&
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
if [ ! -x "$CHROMIUM_PATH" ]; then
  echo "ensure-chromium: installed, but $CHROMIUM_PATH is still missing" >&2
  exit 1
fi
