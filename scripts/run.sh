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

# Only what the demonstration runs: the packages it needs, the cuzk command without tests or
# benchmarks, and the CUDA backend only where a GPU answers, for that GPU's architecture alone. On
# a machine with nvcc but no GPU the demonstration runs on the CPU, and compiling the CUDA code for
# every architecture would be most of the build time for code that cannot run there.
# scripts/test.sh builds and installs the rest; CUZK_CMAKE_ARGS comes last and wins.
phase setup do_setup --run
cuda_args=(-DCUZK_CUDA=OFF)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  cuda_args=(-DCMAKE_CUDA_ARCHITECTURES=native)
fi
CUZK_CMAKE_ARGS="-DCUZK_BUILD_TESTS=OFF -DCUZK_BUILD_BENCH=OFF ${cuda_args[*]} ${CUZK_CMAKE_ARGS:-}" phase configure do_configure
phase build cmake --build "$BUILD_DIR" -j"$JOBS" --target cuzk

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
