#!/usr/bin/env bash
# Sets up the machine, builds cuzk (Release) and runs the main job: `cuzk selfcheck`, which checks
# the pairing on both curves and prints the checks and their timings.
#   scripts/run.sh                    selfcheck
#   scripts/run.sh <args>             any arguments replace "selfcheck" (e.g. scripts/run.sh --help)
# Environment: see scripts/lib.sh (BUILD_DIR, CUZK_CMAKE_ARGS, CUZK_SKIP_SETUP).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

phase setup do_setup
phase configure do_configure
phase build do_build

CUZK=$BUILD_DIR/src/apps/cuzk
if [[ ! -x $CUZK ]]; then
  echo "error: $CUZK was not built (the apps layer defines the cuzk target)" >&2
  exit 1
fi
(($#)) || set -- selfcheck
phase "cuzk $*" "$CUZK" "$@"
