#!/usr/bin/env bash
# Provides the local OCI registry the Korifi tests and the sandbox push images to and read image
# configs from (docs/decisions.md N40): the `docker-registry` binary of Debian's package of the same
# name (the CNCF distribution registry, the reference implementation of the OCI distribution API).
# Prints the path of the binary, and nothing else, on stdout:
#
#   NUDGER_REGISTRY_BIN="$(scripts/provision-registry.sh)"
#
# The package is downloaded with `apt-get download` and unpacked into the cache, never installed:
# installing it would start a system registry on port 5000 and create a system user. The first run
# takes seconds; later runs only check a stamp. Progress goes to stderr.
#
# Options:
#   --rebuild  discard the cached binary and provision again
#
# Environment:
#   NUDGER_REGISTRY_BIN  a docker-registry binary already at hand: used as is, nothing is fetched
#   NUDGER_CACHE         cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/nudger)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# as_root and apt_update_once: the same apt handling as the control plane's.
# shellcheck source=SCRIPTDIR/lib/control-plane-build.sh
. "$SCRIPT_DIR/lib/control-plane-build.sh"

# Bump when the way the binary is produced changes, so existing caches are provisioned again.
RECIPE=1
PACKAGE=docker-registry

reg_log() { echo "nudger registry: $*" >&2; }

rebuild=0
for arg in "$@"; do
  case "$arg" in
    --rebuild) rebuild=1 ;;
    -h | --help)
      sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
      exit 0
      ;;
    *)
      reg_log "unknown argument '$arg' (try --help)"
      exit 2
      ;;
  esac
done

# $1 = binary; prints its version (`<path> github.com/docker/distribution <version>`), or nothing
# when it is not a distribution registry that runs.
registry_version() { "$1" --version 2>/dev/null | awk 'NR == 1 && $2 ~ /distribution/ { print $NF }'; }

if [ -n "${NUDGER_REGISTRY_BIN:-}" ]; then
  if [ ! -x "$NUDGER_REGISTRY_BIN" ] || [ -z "$(registry_version "$NUDGER_REGISTRY_BIN")" ]; then
    reg_log "NUDGER_REGISTRY_BIN=$NUDGER_REGISTRY_BIN is not a docker-registry binary that runs"
    exit 1
  fi
  echo "$NUDGER_REGISTRY_BIN"
  exit 0
fi

CACHE_ROOT="${NUDGER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nudger}"
REG_DIR="$CACHE_ROOT/registry"
BIN="$REG_DIR/bin/docker-registry"
STAMP="$REG_DIR/stamp"
# Read by apt_update_once (scripts/lib/control-plane-build.sh) for its log file.
CONTROL_PLANE_LOG_DIR="$REG_DIR/logs"

is_provisioned() { [ -f "$STAMP" ] && grep -qx "recipe=$RECIPE" "$STAMP" && [ -x "$BIN" ]; }

if [ "$rebuild" -eq 0 ] && is_provisioned; then
  echo "$BIN"
  exit 0
fi

mkdir -p "$REG_DIR"
# One provisioner at a time: a second concurrent caller waits here, then finds the stamp.
exec 9>"$REG_DIR/lock"
if ! flock -w 600 9; then
  reg_log "gave up waiting for $REG_DIR/lock"
  exit 1
fi
if [ "$rebuild" -eq 1 ]; then
  rm -f "$STAMP"
elif is_provisioned; then
  echo "$BIN"
  exit 0
fi
mkdir -p "$CONTROL_PLANE_LOG_DIR"

download="$REG_DIR/download"
rm -rf "$download"
mkdir -p "$download"
# apt-get download needs no root, only package lists that know the package. A fresh Debian image
# ships none, so update them once (as root or through sudo, like the control plane) and retry.
fetch_deb() { (cd "$download" && apt-get download -q "$PACKAGE" >"$CONTROL_PLANE_LOG_DIR/apt-download.log" 2>&1); }
if ! fetch_deb; then
  reg_log "apt-get download $PACKAGE failed; updating the package lists and retrying"
  if ! apt_update_once || ! fetch_deb; then
    tail -n 20 "$CONTROL_PLANE_LOG_DIR/apt-download.log" >&2 || true
    reg_log "could not download the $PACKAGE package (log: $CONTROL_PLANE_LOG_DIR/apt-download.log)"
    reg_log "alternatively set NUDGER_REGISTRY_BIN to a docker-registry (CNCF distribution) binary"
    exit 1
  fi
fi
deb="$(find "$download" -maxdepth 1 -name "${PACKAGE}_*.deb" -print -quit)"
dpkg-deb -x "$deb" "$download/root"

staging="$REG_DIR/bin.new"
rm -rf "$staging"
mkdir -p "$staging"
cp "$download/root/usr/bin/docker-registry" "$staging/docker-registry"
version="$(registry_version "$staging/docker-registry")"
if [ -z "$version" ]; then
  reg_log "the unpacked $staging/docker-registry does not run"
  exit 1
fi
rm -rf "$REG_DIR/bin"
mv "$staging" "$REG_DIR/bin"
{
  echo "recipe=$RECIPE"
  echo "registry=$version"
  echo "package=$(basename "$deb" .deb)"
  echo "provisioned-at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$STAMP.new"
mv "$STAMP.new" "$STAMP"
rm -rf "$download"
reg_log "provisioned docker-registry $version from $(basename "$deb") in $BIN"
echo "$BIN"
