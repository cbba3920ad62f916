# shellcheck shell=bash
# Sourced by the project's entry scripts. Puts Node.js >= 24 on PATH and installs the npm
# dependencies when the lock file changed. The machines we target ship an older Node (20), and
# the npm package `node@24` carries the official binary, so no download outside the npm registry
# is needed.
set -euo pipefail

NUDGER_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NUDGER_CACHE="${NUDGER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nudger}"
export NUDGER_ROOT NUDGER_CACHE

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  if [ "$(node_major)" -ge 24 ]; then return; fi
  local dir="$NUDGER_CACHE/node24"
  if [ ! -x "$dir/node_modules/node/bin/node" ]; then
    echo "nudger: system Node is $(node --version 2>/dev/null || echo missing); installing node@24 into $dir" >&2
    mkdir -p "$dir"
    npm install --no-audit --no-fund --no-save --loglevel=error --prefix "$dir" node@24 >&2
  fi
  export PATH="$dir/node_modules/node/bin:$PATH"
  if [ "$(node_major)" -lt 24 ]; then
    echo "nudger: could not obtain Node 24 (still $(node --version))" >&2
    exit 2
  fi
}

# npm ci when node_modules is missing or older than the lock file; prepare builds dist/.
ensure_deps() {
  cd "$NUDGER_ROOT"
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error >&2
  elif [ ! -f dist/cli/main.js ] || [ -n "$(find src -newer dist/cli/main.js -name '*.ts' -print -quit)" ]; then
    npm run --silent build >&2
  fi
}

ensure_node
ensure_deps
