#!/usr/bin/env bash
# Provides a real etcd and kube-apiserver for the integration tests (docs/decisions.md D7), plus the
# kubectl of the same Kubernetes release (for rendering and dry-running deploy/), and prints the
# directory holding all three, and nothing else, on stdout:
#
#   KUBEBUILDER_ASSETS="$(scripts/provision-control-plane.sh)"
#
# The first run installs Debian packages and compiles kube-apiserver (minutes); later runs only
# check a stamp (milliseconds). Progress goes to stderr. See docs/control-plane.md.
#
# Options:
#   --verify   also start etcd + kube-apiserver once and check them, even when cached
#   --rebuild  discard the cached binaries and provision again
#
# Environment:
#   KUBEBUILDER_ASSETS  a directory already holding etcd and kube-apiserver (and kubectl, for the
#                       deploy tests): used as is, nothing is installed or built (and nothing
#                       verified unless --verify)
#   NUDGER_CACHE        cache root (default ${XDG_CACHE_HOME:-$HOME/.cache}/nudger)
#   NUDGER_KEEP_BUILD=1 keep the unpacked source and Go build cache (about 1.8 GB) after a build
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=SCRIPTDIR/lib/control-plane-build.sh
. "$SCRIPT_DIR/lib/control-plane-build.sh"
# shellcheck source=SCRIPTDIR/lib/control-plane-smoke.sh
. "$SCRIPT_DIR/lib/control-plane-smoke.sh"
# shellcheck source=SCRIPTDIR/lib/control-plane-kubectl.sh
. "$SCRIPT_DIR/lib/control-plane-kubectl.sh"

# Bump when the way the binaries are produced changes, so existing caches are rebuilt.
# 2: vendored reflect2 replaced by Debian's 1.0.2 (1.0.1 faults under Go >= 1.18 on custom resources)
RECIPE=2

verify=0
rebuild=0
for arg in "$@"; do
  case "$arg" in
    --verify) verify=1 ;;
    --rebuild) rebuild=1 ;;
    -h | --help)
      sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
      exit 0
      ;;
    *)
      cp_log "unknown argument '$arg' (try --help)"
      exit 2
      ;;
  esac
done

has_both_binaries() { [ -x "$1/etcd" ] && [ -x "$1/kube-apiserver" ]; }

# --verify: the control plane smoke test, and kubectl's when there is one.
verify_bin_dir() {
  smoke_test_control_plane "$1"
  if [ -x "$1/kubectl" ]; then
    local version
    version="$(check_kubectl "$1/kubectl")" || return 1
    cp_log "kubectl $version runs and renders kustomizations"
  fi
}

if [ -n "${KUBEBUILDER_ASSETS:-}" ]; then
  if ! has_both_binaries "$KUBEBUILDER_ASSETS"; then
    cp_log "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS does not hold executable etcd and kube-apiserver"
    exit 1
  fi
  # Not fatal: only the deploy tests need kubectl, and they say so themselves.
  if [ ! -x "$KUBEBUILDER_ASSETS/kubectl" ]; then
    cp_log "note: KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS holds no kubectl; the deploy tests need one"
  fi
  if [ "$verify" -eq 1 ]; then verify_bin_dir "$KUBEBUILDER_ASSETS"; fi
  echo "$KUBEBUILDER_ASSETS"
  exit 0
fi

CACHE_ROOT="${NUDGER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nudger}"
CP_DIR="$CACHE_ROOT/control-plane"
BIN_DIR="$CP_DIR/bin"
STAMP="$CP_DIR/stamp"
BUILD_DIR="$CP_DIR/build"
CONTROL_PLANE_LOG_DIR="$CP_DIR/logs"

# The stamp is written last (atomic rename) and only after a passing smoke test, so its presence
# with the current recipe means the binaries beside it are complete and known to work.
control_plane_is_provisioned() {
  [ -f "$STAMP" ] && grep -qx "recipe=$RECIPE" "$STAMP" && has_both_binaries "$BIN_DIR"
}
# kubectl has its own stamp line: caches made before kubectl was added gain it without recompiling
# kube-apiserver (which a RECIPE bump would force).
kubectl_is_provisioned() {
  grep -q '^kubectl=' "$STAMP" 2>/dev/null && [ -x "$BIN_DIR/kubectl" ]
}
is_provisioned() { control_plane_is_provisioned && kubectl_is_provisioned; }

# $1 = the kubectl binary; prints the stamp lines describing it.
kubectl_stamp_lines() {
  local version
  version="$(check_kubectl "$1")" || return 1
  echo "kubectl=$version"
  echo "kubectl-package=$(kubectl_package_version)"
}

if [ "$rebuild" -eq 0 ] && is_provisioned; then
  if [ "$verify" -eq 1 ]; then verify_bin_dir "$BIN_DIR"; fi
  echo "$BIN_DIR"
  exit 0
fi

mkdir -p "$CP_DIR"
# One provisioner at a time: a second concurrent caller waits here, then finds the stamp.
exec 9>"$CP_DIR/lock"
if ! flock -n 9; then
  cp_log "another run is provisioning; waiting for $CP_DIR/lock (at most 30 minutes)"
  if ! flock -w 1800 9; then
    cp_log "gave up waiting for $CP_DIR/lock"
    exit 1
  fi
fi
trap remove_own_policy_rcd EXIT
mkdir -p "$CONTROL_PLANE_LOG_DIR"

if [ "$rebuild" -eq 1 ]; then
  rm -f "$STAMP"
elif is_provisioned; then
  cp_log "provisioned by a concurrent run"
  if [ "$verify" -eq 1 ]; then verify_bin_dir "$BIN_DIR"; fi
  echo "$BIN_DIR"
  exit 0
elif control_plane_is_provisioned; then
  # Only kubectl is missing (a cache from before it was added): fetch it, keep everything else.
  fetch_kubectl "$BIN_DIR/kubectl.new"
  kubectl_lines="$(kubectl_stamp_lines "$BIN_DIR/kubectl.new")"
  mv "$BIN_DIR/kubectl.new" "$BIN_DIR/kubectl"
  { grep -v '^kubectl' "$STAMP" || true; echo "$kubectl_lines"; } >"$STAMP.new"
  mv "$STAMP.new" "$STAMP"
  cp_log "added $(head -n 1 <<<"$kubectl_lines" | tr '=' ' ') to $BIN_DIR"
  if [ "$verify" -eq 1 ]; then verify_bin_dir "$BIN_DIR"; fi
  echo "$BIN_DIR"
  exit 0
fi

total_start=$SECONDS
install_packages "${CONTROL_PLANE_APT_PACKAGES[@]}"
ensure_kubernetes_source_entry
tree="$(fetch_kubernetes_source "$BUILD_DIR")"
build_kube_apiserver "$tree" "$BUILD_DIR"

# Stage next to the final directory, then swap, so no reader ever sees half-copied binaries.
# etcd is copied rather than linked so the stamp stays true if the package is upgraded later.
staging="$CP_DIR/bin.new"
rm -rf "$staging"
mkdir -p "$staging"
cp /usr/bin/etcd "$staging/etcd"
cp "$tree/_output/bin/kube-apiserver" "$staging/kube-apiserver"
fetch_kubectl "$staging/kubectl"
smoke_test_control_plane "$staging"
kubectl_lines="$(kubectl_stamp_lines "$staging/kubectl")"
rm -rf "$BIN_DIR"
mv "$staging" "$BIN_DIR"

etcd_version="$("$BIN_DIR/etcd" --version | awk '/^etcd Version:/ { print $3 }')"
apiserver_version="$("$BIN_DIR/kube-apiserver" --version | awk '{ print $2 }')"
source_version="$(dpkg-parsechangelog -l "$tree/debian/changelog" -S Version)"
{
  echo "recipe=$RECIPE"
  echo "etcd=$etcd_version"
  echo "etcd-package=$(dpkg-query -W -f='${Version}' etcd-server)"
  echo "kube-apiserver=$apiserver_version"
  echo "kubernetes-source-package=$source_version"
  echo "go=$(debian_go_version)"
  echo "compile-seconds=${CONTROL_PLANE_COMPILE_SECONDS:-unknown}"
  echo "kube-apiserver-bytes=$(stat -c %s "$BIN_DIR/kube-apiserver")"
  echo "$kubectl_lines"
  echo "provisioned-at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$STAMP.new"
mv "$STAMP.new" "$STAMP"

if [ "${NUDGER_KEEP_BUILD:-0}" != 1 ]; then rm -rf "$BUILD_DIR"; fi
cp_log "provisioned etcd $etcd_version, kube-apiserver $apiserver_version and $(head -n 1 <<<"$kubectl_lines" | tr '=' ' ') in $((SECONDS - total_start))s"
echo "$BIN_DIR"
