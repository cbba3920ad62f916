#!/usr/bin/env bash
# The main job for now: nudger on the bundled examples. Validates the OLM operator's GitOps tree
# (30 operands nudging one bundle), prints the rebuild plan when every operand changes, with the
# build count of ADR 29 nudging next to that of ChangeGroups, then does the same for a parent image,
# draws its graph, and shows the dry run of the migration from build-nudges-ref.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/node.sh"
cd "$NUDGER_ROOT"
nudger() {
  printf '\n$ nudger %s\n' "$*"
  node dist/cli/main.js "$@"
}

nudger validate examples/olm-operator
nudger plan examples/olm-operator --changed 'stellar-*,!stellar-operator-bundle'
nudger plan examples/parent-image --changed 'python-base,*-api,*-worker'
nudger graph examples/parent-image --format mermaid
nudger migrate examples/olm-operator-legacy --output json
nudger validate examples/invalid || echo "(exit $?: examples/invalid breaks every rule once, on purpose)"
