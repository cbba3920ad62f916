#!/usr/bin/env bash
# Provides the headless browser the dashboard's browser tests and screenshots drive through
# playwright-core (docs/decisions.md N48): Debian's `chromium` package, and a font so that pages
# render text. Prints the path of the Chromium executable, and nothing else, on stdout:
#
#   NUDGER_CHROMIUM="$(scripts/provision-chromium.sh)"
#
# Unlike the registry (N40), Chromium is installed, not unpacked into the cache: it links about a
# hundred of the system's shared libraries, which only apt resolves. When it is already installed
# the script prints its path at once. Installing needs root or passwordless sudo. Progress goes to
# stderr.
#
# Options:
#   --dry-run  say what is missing and what would be run; change nothing
#
# Environment:
#   NUDGER_CHROMIUM  a Chromium executable already at hand: used as is, nothing is installed
#   NUDGER_CACHE     cache root for the lock and the apt logs (default ${XDG_CACHE_HOME:-$HOME/.cache}/nudger)
#   NUDGER_CHROMIUM_PACKAGE_PATH  where the package puts the executable (default /usr/bin/chromium)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# as_root and apt_update_once: the same apt handling as the control plane's.
# shellcheck source=SCRIPTDIR/lib/control-plane-build.sh
. "$SCRIPT_DIR/lib/control-plane-build.sh"

PACKAGE=chromium
# Any one of them gives the pages text; Debian's fontconfig-config already depends on either.
FONT_PACKAGE=fonts-dejavu-core
CHROMIUM_BIN="${NUDGER_CHROMIUM_PACKAGE_PATH:-/usr/bin/chromium}"

chr_log() { echo "nudger chromium: $*" >&2; }

dry_run=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=1 ;;
    -h | --help)
      sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
      exit 0
      ;;
    *)
      chr_log "unknown argument '$arg' (try --help)"
      exit 2
      ;;
  esac
done

# $1 = executable; prints its version (`Chromium 156.0...`), or nothing when it does not run.
# Debian's launcher may complain on stderr about its /dev/shm check; only stdout counts.
chromium_version() { { "$1" --version 2>/dev/null || true; } | awk 'NR == 1 && /^Chromium / { print $2 }'; }

# Whether any font is installed: fontconfig's list when it is there, else the font directories.
has_font() {
  if command -v fc-list >/dev/null 2>&1; then
    [ -n "$(fc-list 2>/dev/null | head -n 1)" ]
  else
    [ -n "$(find /usr/share/fonts /usr/local/share/fonts -type f \( -name '*.ttf' -o -name '*.otf' -o -name '*.pfb' \) 2>/dev/null | head -n 1)" ]
  fi
}

# Whether the package lists offer $1 (a fresh image has no lists; old ones may lack a package).
apt_lists_know() {
  apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { found = ($2 != "(none)") } END { exit found ? 0 : 1 }'
}

if [ -n "${NUDGER_CHROMIUM:-}" ]; then
  if [ ! -x "$NUDGER_CHROMIUM" ] || [ -z "$(chromium_version "$NUDGER_CHROMIUM")" ]; then
    chr_log "NUDGER_CHROMIUM=$NUDGER_CHROMIUM is not a Chromium executable that runs"
    exit 1
  fi
  echo "$NUDGER_CHROMIUM"
  exit 0
fi

# The packages still missing, one per line.
missing() {
  if [ ! -x "$CHROMIUM_BIN" ] || [ -z "$(chromium_version "$CHROMIUM_BIN")" ]; then echo "$PACKAGE"; fi
  if ! has_font; then echo "$FONT_PACKAGE"; fi
}

mapfile -t needed < <(missing)
if [ "${#needed[@]}" -eq 0 ]; then
  echo "$CHROMIUM_BIN"
  exit 0
fi

if [ "$dry_run" -eq 1 ]; then
  chr_log "missing: ${needed[*]}"
  if ! apt_lists_know "$PACKAGE" 2>/dev/null; then chr_log "would run: apt-get update"; fi
  chr_log "would run: apt-get install -y --no-install-recommends ${needed[*]}"
  echo "$CHROMIUM_BIN"
  exit 0
fi

if [ "$(id -u)" -ne 0 ] && ! { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; then
  chr_log "${needed[*]} not installed, and installing needs root or passwordless sudo."
  chr_log "install it yourself: sudo apt-get install --no-install-recommends ${needed[*]}"
  chr_log "or set NUDGER_CHROMIUM to a Chromium executable"
  exit 1
fi

CACHE_ROOT="${NUDGER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nudger}"
CHR_DIR="$CACHE_ROOT/chromium"
# Read by apt_update_once (scripts/lib/control-plane-build.sh) for its log file.
CONTROL_PLANE_LOG_DIR="$CHR_DIR/logs"
mkdir -p "$CONTROL_PLANE_LOG_DIR"
# One provisioner at a time: a second concurrent caller waits here, then finds Chromium installed.
exec 9>"$CHR_DIR/lock"
if ! flock -w 900 9; then
  chr_log "gave up waiting for $CHR_DIR/lock"
  exit 1
fi
mapfile -t needed < <(missing)
if [ "${#needed[@]}" -eq 0 ]; then
  echo "$CHROMIUM_BIN"
  exit 0
fi

install_log="$CONTROL_PLANE_LOG_DIR/apt-install.log"
install_needed() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${needed[@]}" \
    >"$install_log" 2>&1
}
# A fresh Debian image ships no package lists, and old lists name .debs the mirror no longer has
# (404): update them first when they do not know the package, and once more when the install fails.
if ! apt_lists_know "$PACKAGE"; then apt_update_once || true; fi
chr_log "apt-get install ${needed[*]} (log: $install_log)"
if ! install_needed; then
  chr_log "apt-get install failed; updating the package lists and retrying"
  if ! apt_update_once || ! install_needed; then
    tail -n 20 "$install_log" >&2 || true
    chr_log "could not install ${needed[*]} (log: $install_log); or set NUDGER_CHROMIUM to a Chromium executable"
    exit 1
  fi
fi
version="$(chromium_version "$CHROMIUM_BIN")"
if [ -z "$version" ]; then
  chr_log "$CHROMIUM_BIN does not run after installing $PACKAGE"
  exit 1
fi
if ! has_font; then
  chr_log "still no font after installing $FONT_PACKAGE"
  exit 1
fi
chr_log "installed Chromium $version ($CHROMIUM_BIN)"
echo "$CHROMIUM_BIN"
