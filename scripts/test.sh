#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Sets up the machine, builds cuzk (Release), runs every test with CTest, then the Python and
# JavaScript clients' tests against a daemon of the cuzk just built (clients/test.sh).
#   scripts/test.sh              all tests (GPU tests skip themselves where there is no GPU)
#   scripts/test.sh -L unit      any further arguments go to ctest (-L gpu, -R fp_, -LE slow ...),
#                                and the clients' tests are left out
# Environment: see scripts/lib.sh (BUILD_DIR, CUZK_CMAKE_ARGS, CUZK_SKIP_SETUP).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

phase setup do_setup
phase configure do_configure
phase build do_build
phase test ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" \
  --timeout "${CUZK_TEST_TIMEOUT:-1200}" "$@"
if (($# == 0)); then
  phase clients bash "$ROOT/clients/test.sh" "$BUILD_DIR/src/apps/cuzk"
fi
