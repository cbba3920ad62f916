#!/usr/bin/env bash
# The full test suite, from a fresh clone: obtains Node 24 and the dependencies, then runs lint,
# format check, type check, CRD drift check, build and all tests with coverage.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/node.sh"
cd "$NUDGER_ROOT"
echo "node $(node --version), npm $(npm --version)" >&2
# Integration tests need etcd + kube-apiserver (docs/control-plane.md); a warm cache answers at once.
# Assigned before the export so that set -e stops here when provisioning fails.
KUBEBUILDER_ASSETS="${KUBEBUILDER_ASSETS:-$(bash scripts/provision-control-plane.sh)}"
export KUBEBUILDER_ASSETS
# The Korifi tests push to and read from a real local OCI registry (docs/decisions.md N40).
NUDGER_REGISTRY_BIN="$(bash scripts/provision-registry.sh)"
export NUDGER_REGISTRY_BIN
# The dashboard's browser tests drive Debian's Chromium through playwright-core (docs/decisions.md N48).
NUDGER_CHROMIUM="$(bash scripts/provision-chromium.sh)"
export NUDGER_CHROMIUM
npm test
