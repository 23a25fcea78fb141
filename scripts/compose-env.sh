#!/usr/bin/env bash
# `make up`, first: the compose stack's secrets. Writes a fresh ADMIN_TOKEN and ACCOUNTS_ENCRYPTION_KEY
# into docker/.env (git-ignored; compose reads it) when it lacks them, and keeps them on every later run:
# the key seals what the stack stores in Postgres, so a new one would leave that unreadable.
# Usage: scripts/compose-env.sh [file]   (default docker/.env)
set -euo pipefail
file="${1:-$(dirname "$0")/../docker/.env}"

random() { # random <bytes> <hex|base64>
  if command -v openssl >/dev/null 2>&1; then
    openssl rand "-$2" "$1"
  elif command -v node >/dev/null 2>&1; then
    node -e "process.stdout.write(require('crypto').randomBytes($1).toString('$2') + '\n')"
  else
    echo "compose-env: neither openssl nor node is installed to generate $file's secrets" >&2
    exit 1
  fi
}

touch "$file"
chmod 600 "$file"
# An empty line of either (a copied template) would shadow the one appended.
sed -i.bak -e '/^ADMIN_TOKEN=$/d' -e '/^ACCOUNTS_ENCRYPTION_KEY=$/d' "$file" && rm -f "$file.bak"
if ! grep -q '^ADMIN_TOKEN=.' "$file"; then
  echo "ADMIN_TOKEN=$(random 24 hex)" >> "$file"
  echo "Wrote a fresh ADMIN_TOKEN into $file (the API's bearer token)."
fi
if ! grep -q '^ACCOUNTS_ENCRYPTION_KEY=.' "$file"; then
  echo "ACCOUNTS_ENCRYPTION_KEY=$(random 32 base64)" >> "$file"
  echo "Wrote a fresh ACCOUNTS_ENCRYPTION_KEY into $file (it seals the stack's secrets in Postgres: keep it)."
fi
