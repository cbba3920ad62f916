# shellcheck shell=bash
# Sourced by scripts/provision-control-plane.sh, after control-plane-build.sh (uses cp_log and
# apt_update_once). Puts kubectl v1.20.2 beside etcd and kube-apiserver: the deploy tests render
# deploy/ with its built-in kustomize and dry-run the result against our kube-apiserver.
#
# kubectl comes from Debian's `kubernetes-client` binary package, built from the same `kubernetes`
# source package as our kube-apiserver. We extract it from the .deb instead of installing it:
# developer machines often already have a kubectl package owning /usr/bin/kubectl (Google Cloud
# SDK's `kubectl`, upstream's apt repository), which dpkg would refuse to overwrite, and replacing
# the kubectl a developer uses every day with a 2021 one would be rude. Extraction needs no root.

CONTROL_PLANE_KUBECTL_PACKAGE=kubernetes-client

# The version apt-get download fetches: the candidate, as apt-cache sees it.
kubectl_package_version() {
  apt-cache show --no-all-versions "$CONTROL_PLANE_KUBECTL_PACKAGE" 2>/dev/null |
    awk '/^Version:/ { print $2; exit }'
}

# Writes the kubectl binary to $1. Runs in a subshell so the EXIT trap cleans the work directory on
# every path.
fetch_kubectl() (
  local dest="$1" work log="$CONTROL_PLANE_LOG_DIR/apt-download-kubectl.log"
  work="$(mktemp -d "${TMPDIR:-/tmp}/nudger-kubectl.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  cp_log "apt-get download $CONTROL_PLANE_KUBECTL_PACKAGE (kubectl, 8 MB)"
  # A fresh image has no package lists; only then is root needed, for apt-get update.
  if ! (cd "$work" && apt-get download -q "$CONTROL_PLANE_KUBECTL_PACKAGE" >"$log" 2>&1); then
    apt_update_once
    if ! (cd "$work" && apt-get download -q "$CONTROL_PLANE_KUBECTL_PACKAGE" >"$log" 2>&1); then
      tail -n 20 "$log" >&2
      cp_log "apt-get download $CONTROL_PLANE_KUBECTL_PACKAGE failed; full log: $log"
      return 1
    fi
  fi
  local deb
  deb="$(find "$work" -maxdepth 1 -name "${CONTROL_PLANE_KUBECTL_PACKAGE}_*.deb" | head -n 1)"
  if [ -z "$deb" ]; then
    cp_log "apt-get download left no ${CONTROL_PLANE_KUBECTL_PACKAGE}_*.deb in $work"
    return 1
  fi
  if ! dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" ./usr/bin/kubectl; then
    cp_log "could not extract usr/bin/kubectl from $deb"
    return 1
  fi
  cp "$work/usr/bin/kubectl" "$dest"
  chmod 755 "$dest"
)

# Proves the binary runs and that `kubectl kustomize` renders offline (kubectl 1.20 embeds
# kustomize v2.0.3, which is what deploy/ must stay compatible with). Prints the client version.
check_kubectl() (
  local kubectl="$1" version dir out
  version="$("$kubectl" version --client --short 2>/dev/null | awk '/^Client Version:/ { print $3 }')"
  if [ -z "$version" ]; then
    cp_log "$kubectl does not run (kubectl version --client failed)"
    return 1
  fi
  dir="$(mktemp -d "${TMPDIR:-/tmp}/nudger-kustomize.XXXXXX")"
  trap 'rm -rf "$dir"' EXIT
  printf 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: nudger-check\nresources:\n  - cm.yaml\n' \
    >"$dir/kustomization.yaml"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: nudger-check\n' >"$dir/cm.yaml"
  if ! out="$("$kubectl" kustomize "$dir" 2>&1)" || ! grep -q 'namespace: nudger-check' <<<"$out"; then
    printf '%s\n' "$out" | tail -n 10 >&2
    cp_log "$kubectl kustomize did not render a one-ConfigMap kustomization"
    return 1
  fi
  echo "$version"
)
