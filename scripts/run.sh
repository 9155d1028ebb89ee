#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Sets up the machine, builds cuzk (Release) and runs the main job, scripts/demo.sh: proofs of the
# bundled circuits with `cuzk prove`, checked by `cuzk verify` (and snarkjs), on both curves, then
# `cuzk selfcheck` (pairing checks and timings).
#   scripts/run.sh                    the demonstration
#   scripts/run.sh <args>             runs `cuzk <args>` instead (e.g. scripts/run.sh --help)
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
if (($#)); then
  phase "cuzk $*" "$CUZK" "$@"
else
  phase demonstration bash "$ROOT/scripts/demo.sh" "$CUZK"
fi
