#!/usr/bin/env bash
# The main job for now: nudger on the bundled OLM operator example (30 operands nudging one bundle).
# Validates the GitOps tree, draws its nudge graph and prints the rebuild plan when every operand
# changes, with the build count of ADR 29 nudging next to that of ChangeGroups.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/node.sh"
cd "$NUDGER_ROOT"
nudger() { node dist/cli/main.js "$@"; }
example=examples/olm-operator

echo "\$ nudger validate $example"
nudger validate "$example"
echo
echo "\$ nudger graph $example --format mermaid"
nudger graph "$example" --format mermaid
echo
echo "\$ nudger plan $example --changed 'operand-*'"
nudger plan "$example" --changed 'operand-*'
