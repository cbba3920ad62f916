#!/usr/bin/env bash
# Provides Debian's `wrk` HTTP load generator for the scale benchmark's webhook throughput figure
# (bench/scale.ts, docs/decisions.md N45): load from a separate process, not from the server's own.
# Bench only; no test needs it. Prints the path of a wrapper that runs wrk, and nothing else, on
# stdout:
#
#   WRK="$(scripts/provision-wrk.sh)"
#
# The package and its LuaJIT library are fetched with `apt-get download` and unpacked into the
# cache, never installed (as scripts/provision-registry.sh does). Progress goes to stderr.
#
# Options:
#   --rebuild  discard the cached binary and provision again
#
# Environment:
#   NUDGER_WRK_BIN  a wrk binary already at hand: used as is, nothing is fetched
#   NUDGER_CACHE    cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/nudger)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=SCRIPTDIR/lib/control-plane-build.sh
. "$SCRIPT_DIR/lib/control-plane-build.sh"

RECIPE=1
PACKAGES=(wrk)

wrk_log() { echo "nudger wrk: $*" >&2; }

rebuild=0
for arg in "$@"; do
  case "$arg" in
    --rebuild) rebuild=1 ;;
    -h | --help)
      sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
      exit 0
      ;;
    *)
      wrk_log "unknown argument '$arg' (try --help)"
      exit 2
      ;;
  esac
done

# $1 = wrk or its wrapper; prints `wrk <version>` when it runs.
wrk_version() { { "$1" --version 2>&1 || true; } | awk 'NR == 1 && $1 == "wrk" { print $2 }'; }

if [ -n "${NUDGER_WRK_BIN:-}" ]; then
  if [ ! -x "$NUDGER_WRK_BIN" ] || [ -z "$(wrk_version "$NUDGER_WRK_BIN")" ]; then
    wrk_log "NUDGER_WRK_BIN=$NUDGER_WRK_BIN is not a wrk binary that runs"
    exit 1
  fi
  echo "$NUDGER_WRK_BIN"
  exit 0
fi

CACHE_ROOT="${NUDGER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nudger}"
WRK_DIR="$CACHE_ROOT/wrk"
BIN="$WRK_DIR/bin/wrk"
STAMP="$WRK_DIR/stamp"
CONTROL_PLANE_LOG_DIR="$WRK_DIR/logs"

is_provisioned() { [ -f "$STAMP" ] && grep -qx "recipe=$RECIPE" "$STAMP" && [ -x "$BIN" ]; }

if [ "$rebuild" -eq 0 ] && is_provisioned; then
  echo "$BIN"
  exit 0
fi

mkdir -p "$WRK_DIR"
exec 9>"$WRK_DIR/lock"
if ! flock -w 600 9; then
  wrk_log "gave up waiting for $WRK_DIR/lock"
  exit 1
fi
if [ "$rebuild" -eq 1 ]; then
  rm -f "$STAMP"
elif is_provisioned; then
  echo "$BIN"
  exit 0
fi
mkdir -p "$CONTROL_PLANE_LOG_DIR"

download="$WRK_DIR/download"
rm -rf "$download"
mkdir -p "$download"
# wrk links LuaJIT, which a plain Debian image lacks: the package wrk depends on comes along
# (whichever of the two alternatives the package lists know), unpacked next to the binary.
luajit="$(apt-cache depends wrk 2>/dev/null | awk '/Depends: libluajit/ { print $NF; exit }')"
fetch_debs() {
  (cd "$download" && apt-get download -q "${PACKAGES[@]}" ${luajit:+"$luajit"} >"$CONTROL_PLANE_LOG_DIR/apt-download.log" 2>&1)
}
if [ -z "$luajit" ] || ! fetch_debs; then
  wrk_log "apt-get download wrk failed; updating the package lists and retrying"
  apt_update_once || true
  luajit="$(apt-cache depends wrk 2>/dev/null | awk '/Depends: libluajit/ { print $NF; exit }')"
  if ! fetch_debs; then
    tail -n 20 "$CONTROL_PLANE_LOG_DIR/apt-download.log" >&2 || true
    wrk_log "could not download wrk (log: $CONTROL_PLANE_LOG_DIR/apt-download.log); or set NUDGER_WRK_BIN"
    exit 1
  fi
fi
for deb in "$download"/*.deb; do dpkg-deb -x "$deb" "$download/root"; done

staging="$WRK_DIR/bin.new"
rm -rf "$staging"
mkdir -p "$staging/lib"
cp "$download/root/usr/bin/wrk" "$staging/wrk.real"
find "$download/root" -name 'libluajit*.so*' -exec cp -P {} "$staging/lib/" \;
cat >"$staging/wrk" <<'WRAPPER'
#!/bin/sh
here="$(cd "$(dirname "$0")" && pwd)"
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/wrk.real" "$@"
WRAPPER
chmod +x "$staging/wrk"
rm -rf "$WRK_DIR/bin"
mv "$staging" "$WRK_DIR/bin"
version="$(wrk_version "$BIN")"
if [ -z "$version" ]; then
  wrk_log "the unpacked $BIN does not run"
  exit 1
fi
{
  echo "recipe=$RECIPE"
  echo "wrk=$version"
  echo "provisioned-at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$STAMP.new"
mv "$STAMP.new" "$STAMP"
rm -rf "$download"
wrk_log "provisioned wrk $version in $BIN"
echo "$BIN"
