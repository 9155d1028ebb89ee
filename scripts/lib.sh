# SPDX-License-Identifier: MIT OR Apache-2.0
# Shared by scripts/run.sh, scripts/test.sh and .ci/run (sourced, not run).
# Sets ROOT, BUILD_DIR and the cmake arguments; `phase` runs one step under a banner with its time.
#
#   BUILD_DIR          build folder, relative to the repository root or absolute (default: build)
#   CUZK_CMAKE_ARGS    extra arguments for the configure step, e.g. "-DCUZK_CUDA=OFF"
#   CUZK_SKIP_SETUP=1  do not run scripts/setup.sh (for machines set up some other way)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
JOBS=$(nproc)

phase() {
  local name=$1 start rc=0
  shift
  start=$(date +%s)
  printf '\n==== %s ====\n' "$name"
  "$@" || rc=$?
  if ((rc)); then
    printf '==== %s FAILED (exit %d) after %ds ====\n' "$name" "$rc" "$(($(date +%s) - start))" >&2
    exit "$rc"
  fi
  printf '==== %s done in %ds ====\n' "$name" "$(($(date +%s) - start))"
}

do_setup() {
  if [[ ${CUZK_SKIP_SETUP:-0} == 1 ]]; then
    echo "CUZK_SKIP_SETUP=1: not running scripts/setup.sh"
  else
    bash "$ROOT/scripts/setup.sh" "$@"
  fi
}

do_configure() {
  local -a extra=()
  # Word-split on purpose: CUZK_CMAKE_ARGS holds several arguments.
  read -r -a extra <<<"${CUZK_CMAKE_ARGS:-}"
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "${extra[@]}"
}

do_build() { cmake --build "$BUILD_DIR" -j"$JOBS"; }
