#!/usr/bin/env bash
# The main job: `nudger sandbox`. Obtains Node 24, the dependencies and the local control plane
# (etcd + kube-apiserver, built once and cached; docs/control-plane.md), builds nudger, then plays
# the bundled 30-operand OLM operator scenario with ChangeGroups and without (build-service nudging),
# and with ChangeGroups and nudger's dispatcher firing directly, side by side.
# Arguments go to `nudger sandbox` (e.g. --scenario examples/sandbox/build-now.yaml --output json).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/node.sh"
cd "$NUDGER_ROOT"
# Assigned before the export so that set -e stops here when provisioning fails.
KUBEBUILDER_ASSETS="${KUBEBUILDER_ASSETS:-$(bash scripts/provision-control-plane.sh)}"
export KUBEBUILDER_ASSETS
# The Korifi scenarios' kpack stand-in builds images into a local OCI registry (docs/decisions.md N40).
NUDGER_REGISTRY_BIN="$(bash scripts/provision-registry.sh)"
export NUDGER_REGISTRY_BIN
node dist/cli/main.js sandbox "$@"
