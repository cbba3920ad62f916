# shellcheck shell=bash
# Sourced by scripts/provision-control-plane.sh. Obtains etcd and kube-apiserver from Debian's
# archives only (docs/decisions.md D7): etcd from the `etcd-server` binary package, kube-apiserver compiled
# from the `kubernetes` source package, because no other download source is reachable from our
# machines. Every function logs to stderr; stdout belongs to the entry script.

# Packages needed to fetch and compile. CGO is off, so no C compiler: only `make` from the
# build-essential set. dpkg-dev provides dpkg-source, which `apt-get source` runs to unpack.
# shellcheck disable=SC2034 # read by the entry script
CONTROL_PLANE_APT_PACKAGES=(etcd-server golang-go golang-github-modern-go-reflect2-dev rsync make dpkg-dev curl openssl)
# The file we own under sources.list.d; written only when no deb-src entry provides kubernetes.
CONTROL_PLANE_DEB_SRC_FILE=/etc/apt/sources.list.d/nudger-deb-src.sources
# Fallback suite for the source package if the configured suites lack it (bookworm ships
# 1.20.5+really1.20.2; later Debian releases dropped the package).
CONTROL_PLANE_FALLBACK_SUITE=bookworm

# Where apt, apt-get source and make write their (long) output; the entry script points it into
# the cache so the logs outlive the build directory.
CONTROL_PLANE_LOG_DIR="${CONTROL_PLANE_LOG_DIR:-${TMPDIR:-/tmp}}"
CONTROL_PLANE_POLICY_RCD=/usr/sbin/policy-rc.d
CONTROL_PLANE_OWNS_POLICY_RCD=0

cp_log() { echo "nudger control-plane: $*" >&2; }

# Also called from the entry script's EXIT trap: a deny-all policy-rc.d left behind by an
# interrupted run would silently stop every later package from starting its service.
remove_own_policy_rcd() {
  if [ "$CONTROL_PLANE_OWNS_POLICY_RCD" -eq 1 ]; then
    as_root rm -f "$CONTROL_PLANE_POLICY_RCD" || true
    CONTROL_PLANE_OWNS_POLICY_RCD=0
  fi
}

# apt and dpkg need root; fall back to passwordless sudo so a developer account works too.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n "$@"
  else
    cp_log "needs root (or passwordless sudo) to run: $*"
    cp_log "alternatively set KUBEBUILDER_ASSETS to a directory holding etcd and kube-apiserver"
    return 1
  fi
}

apt_update_done=0
apt_update_once() {
  if [ "$apt_update_done" -eq 1 ]; then return; fi
  cp_log "apt-get update"
  local log="$CONTROL_PLANE_LOG_DIR/apt-update.log"
  if ! as_root apt-get update -q >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    cp_log "apt-get update failed; full log: $log"
    return 1
  fi
  apt_update_done=1
}

missing_packages() {
  local pkg status
  for pkg in "$@"; do
    status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
    if [ "$status" != "install ok installed" ]; then echo "$pkg"; fi
  done
}

# Installing etcd-server would start a system etcd on 127.0.0.1:2379 and enable it at boot. A
# policy-rc.d that answers 101 makes invoke-rc.d / deb-systemd-invoke skip the start. We never
# replace an existing policy-rc.d (containers usually ship one); we only add ours and remove it.
install_packages() {
  local missing
  mapfile -t missing < <(missing_packages "$@")
  if [ "${#missing[@]}" -eq 0 ]; then return; fi
  apt_update_once
  cp_log "apt-get install ${missing[*]}"
  if [ ! -e "$CONTROL_PLANE_POLICY_RCD" ]; then
    CONTROL_PLANE_OWNS_POLICY_RCD=1
    printf '#!/bin/sh\n# temporary, written by nudger provision-control-plane.sh\nexit 101\n' |
      as_root tee "$CONTROL_PLANE_POLICY_RCD" >/dev/null
    as_root chmod 755 "$CONTROL_PLANE_POLICY_RCD"
  fi
  local rc=0 log="$CONTROL_PLANE_LOG_DIR/apt-install.log"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}" >"$log" 2>&1 || rc=$?
  remove_own_policy_rcd
  if [ "$rc" -ne 0 ]; then
    tail -n 30 "$log" >&2
    cp_log "apt-get install failed; full log: $log"
    return "$rc"
  fi
  if printf '%s\n' "${missing[@]}" | grep -qx etcd-server; then disable_system_etcd; fi
}

# Only called when we installed etcd-server ourselves: a system etcd somebody set up on purpose is
# left alone. `systemctl disable` works offline (no running systemd needed); stop only if booted.
disable_system_etcd() {
  if command -v systemctl >/dev/null 2>&1; then
    as_root systemctl disable etcd.service >/dev/null 2>&1 || true
    if [ -d /run/systemd/system ]; then as_root systemctl stop etcd.service >/dev/null 2>&1 || true; fi
  fi
  if command -v update-rc.d >/dev/null 2>&1; then
    as_root update-rc.d etcd disable >/dev/null 2>&1 || true
  fi
  cp_log "disabled the system etcd service that etcd-server ships (it would hold port 2379)"
}

has_kubernetes_source() {
  apt-cache showsrc --only-source kubernetes 2>/dev/null | grep -q '^Package: kubernetes'
}

# The Debian archive URI this machine already uses (a mirror or snapshot), so the deb-src entry
# goes to a host known to be reachable. Reads both deb822 and one-line formats.
debian_archive_uri() {
  local uri
  uri="$(
    cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
      awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }'
  )"
  if [ -z "$uri" ]; then
    uri="$(
      cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }'
    )"
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

# Debian images ship only `Types: deb`. Rather than editing the system's file we add our own
# deb-src stanza; a deb-src entry brings in no binary packages, so it needs no pinning.
ensure_kubernetes_source_entry() {
  if has_kubernetes_source; then return; fi
  apt_update_once
  if has_kubernetes_source; then return; fi
  local codename uri suites
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  uri="$(debian_archive_uri)"
  suites="${codename:-$CONTROL_PLANE_FALLBACK_SUITE}"
  if [ "$suites" != "$CONTROL_PLANE_FALLBACK_SUITE" ]; then suites="$suites $CONTROL_PLANE_FALLBACK_SUITE"; fi
  cp_log "adding deb-src for '$suites' from $uri in $CONTROL_PLANE_DEB_SRC_FILE"
  printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$uri" "$suites" | as_root tee "$CONTROL_PLANE_DEB_SRC_FILE" >/dev/null
  apt_update_done=0
  apt_update_once
  if ! has_kubernetes_source; then
    cp_log "no Debian suite reachable from $uri provides the kubernetes source package"
    return 1
  fi
}

# Unpacks into $1/src and prints the source tree's path. A tree left by an interrupted run is
# discarded: we cannot tell how far its unpacking or patching got.
fetch_kubernetes_source() {
  local build_dir="$1"
  rm -rf "$build_dir/src"
  mkdir -p "$build_dir/src"
  cp_log "apt-get source kubernetes into $build_dir/src"
  local log="$CONTROL_PLANE_LOG_DIR/apt-source.log"
  if ! (cd "$build_dir/src" && apt-get source -q --only-source kubernetes >"$log" 2>&1); then
    tail -n 20 "$log" >&2
    cp_log "apt-get source kubernetes failed; full log: $log"
    return 1
  fi
  local tree
  tree="$(find "$build_dir/src" -mindepth 1 -maxdepth 1 -type d -name 'kubernetes-*' | head -n 1)"
  if [ -z "$tree" ] || [ ! -f "$tree/Makefile" ]; then
    cp_log "apt-get source produced no kubernetes tree under $build_dir/src"
    return 1
  fi
  echo "$tree"
}

# Same environment as Debian's own debian/rules: a GOPATH whose k8s.io/kubernetes points at the
# tree (the 1.20 build scripts require the tree to sit at that import path) and CGO off. The
# tree embeds its release tag (git-archive export), so the binary reports v1.20.2 without .git.
# hack/lib/init.sh forces GO111MODULE=off (GOPATH mode over vendor/); we only blank GOFLAGS so a
# developer's own setting (e.g. -mod=mod) cannot leak in.
# Debian's default Go (bookworm: 1.19), the one Debian itself builds this source package with,
# ahead of any Go a developer put earlier on PATH: 1.20's vendored tree is untested with others.
CONTROL_PLANE_DEBIAN_GO_BIN=/usr/lib/go/bin
debian_go_version() { "$CONTROL_PLANE_DEBIAN_GO_BIN/go" version | cut -d' ' -f3; }

# Kubernetes 1.20 vendors github.com/modern-go/reflect2 v1.0.1, whose unsafe map iteration
# faults ("fatal error: fault", SIGSEGV in json-iterator) under Go >= 1.18: the API server dies on
# the first custom-resource write. v1.0.2 fixed exactly that and is API-compatible; Debian
# packages its source, so the vendored copy is swapped for it before compiling.
DEBIAN_REFLECT2_SRC=/usr/share/gocode/src/github.com/modern-go/reflect2
replace_vendored_reflect2() {
  local tree="$1" vendored="$1/vendor/github.com/modern-go/reflect2"
  if [ ! -f "$DEBIAN_REFLECT2_SRC/reflect2.go" ] || [ ! -d "$vendored" ]; then
    cp_log "cannot replace vendored reflect2 (missing $DEBIAN_REFLECT2_SRC or $vendored)"
    return 1
  fi
  rsync -a --delete --exclude '*_test.go' --exclude 'go.mod' --exclude 'go.sum' "$DEBIAN_REFLECT2_SRC/" "$vendored/"
  cp_log "vendored reflect2 replaced by Debian's $(dpkg-query -W -f='${Version}' golang-github-modern-go-reflect2-dev 2>/dev/null)"
}

build_kube_apiserver() {
  local tree="$1" build_dir="$2"
  replace_vendored_reflect2 "$tree" || return 1
  mkdir -p "$tree/.go/src/k8s.io"
  [ -L "$tree/.go/src/k8s.io/kubernetes" ] || ln -s ../../.. "$tree/.go/src/k8s.io/kubernetes"
  local log="$CONTROL_PLANE_LOG_DIR/make.log" start=$SECONDS
  cp_log "compiling kube-apiserver with $(debian_go_version) (4-8 minutes on 2 cores; log: $log)"
  if ! (cd "$tree" &&
    env PATH="$CONTROL_PLANE_DEBIAN_GO_BIN:$PATH" GOPATH="$tree/.go" CGO_ENABLED=0 GOFLAGS= \
      make WHAT=cmd/kube-apiserver >"$log" 2>&1); then
    tail -n 40 "$log" >&2
    cp_log "compiling kube-apiserver failed; full log: $log"
    return 1
  fi
  CONTROL_PLANE_COMPILE_SECONDS=$((SECONDS - start))
  cp_log "compiled kube-apiserver in ${CONTROL_PLANE_COMPILE_SECONDS}s"
  if [ ! -x "$tree/_output/bin/kube-apiserver" ]; then
    cp_log "make succeeded but $tree/_output/bin/kube-apiserver is missing"
    return 1
  fi
}
