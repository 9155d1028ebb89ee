#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds the libFuzzer targets (fuzz/, CUZK_FUZZ=ON with clang: ASan + UBSan) and runs each for a
# bounded time from its seed corpus (fuzz/seeds.sh: the fixtures in tests/data). Exits non-zero
# when any target finds a crash, a leak, undefined behaviour, a timeout or runs out of memory; the
# input that did it is kept in <build>/fuzz-artifacts/<target>/ (rerun it: <build>/fuzz/<target> FILE).
#   scripts/fuzz.sh                 every target
#   scripts/fuzz.sh zkey_fuzz ...   only these
# Environment:
#   FUZZ_SECONDS      seconds per target (default 20)
#   FUZZ_MAX_LEN      largest input in bytes (default 65536; larger seeds are cut to it and still seed)
#   FUZZ_RSS_MB       memory limit per target in MiB (default 2048)
#   FUZZ_BUILD_DIR    build folder (default build-fuzz)
#   FUZZ_JOBS         build jobs (default: all cores)
#   FUZZ_CMAKE_ARGS   extra configure arguments (e.g. -DCUZK_WERROR=ON, a compiler launcher)
#   CUZK_SKIP_SETUP=1 do not run scripts/setup.sh
# The corpus each target grows is kept in <build>/fuzz-corpus/<target> and reused by the next run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SECONDS_PER_TARGET=${FUZZ_SECONDS:-20}
MAX_LEN=${FUZZ_MAX_LEN:-65536}
RSS_MB=${FUZZ_RSS_MB:-2048}
FUZZ_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
FUZZ_JOBS=${FUZZ_JOBS:-$JOBS}
ALL_TARGETS=(zkey_fuzz wtns_fuzz r1cs_fuzz proof_json_fuzz public_json_fuzz verification_key_json_fuzz circom_input_fuzz
  submit_request_fuzz)
targets=("$@")
((${#targets[@]})) || targets=("${ALL_TARGETS[@]}")

fuzz_configure() {
  command -v clang++ >/dev/null || { echo "clang++ not found: run scripts/setup.sh" >&2; return 1; }
  local -a extra=()
  read -r -a extra <<<"${FUZZ_CMAKE_ARGS:-}"
  # Only what the fuzz targets link is built, so the tests and benchmarks are left out.
  CC=clang CXX=clang++ cmake -S "$ROOT" -B "$FUZZ_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_FUZZ=ON \
    -DCUZK_CUDA=OFF -DCUZK_BUILD_TESTS=OFF -DCUZK_BUILD_BENCH=OFF "${extra[@]}"
}

fuzz_build() { cmake --build "$FUZZ_DIR" -j"$FUZZ_JOBS" --target "${targets[@]}"; }

# One target: seeds, then libFuzzer for SECONDS_PER_TARGET; its final stats go to stats/<target>.
fuzz_one() {
  local t=$1 bin=$FUZZ_DIR/fuzz/$1 seeds=$FUZZ_DIR/fuzz-seeds/$1 corpus=$FUZZ_DIR/fuzz-corpus/$1
  local art=$FUZZ_DIR/fuzz-artifacts/$1 log=$FUZZ_DIR/fuzz-logs/$1.log rc=0
  local -a dict=()
  [[ $t == *_json_fuzz ]] && dict=(-dict="$ROOT/fuzz/json.dict")
  bash "$ROOT/fuzz/seeds.sh" "$t" "$seeds"
  mkdir -p "$corpus" "$art/" "$(dirname "$log")"
  "$bin" "$corpus" "$seeds" -max_total_time="$SECONDS_PER_TARGET" -max_len="$MAX_LEN" \
    -rss_limit_mb="$RSS_MB" -timeout=60 -print_final_stats=1 "${dict[@]}" \
    -artifact_prefix="$art/" >"$log" 2>&1 || rc=$?
  summarize "$t" "$log"
  if ((rc)); then
    echo "---- $t failed (exit $rc); the end of its log ($log):" >&2
    tail -n 40 "$log" >&2
    ls "$art" >&2
  fi
  return "$rc"
}

# "<target>: <runs> runs in <s> s (<exec/s> exec/s), cov <n> ft <n>, corpus <n>" from libFuzzer's log.
summarize() {
  local t=$1 log=$2 runs secs eps cov ft corp
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  # The last status line (#N DONE / pulse / NEW ...) carries the coverage.
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  printf '%-28s %10s runs in %4s s (%6s exec/s), cov %5s, ft %6s, corpus %5s\n' "$t:" "${runs:-?}" \
    "${secs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}"
}

fuzz_all() {
  local failed=()
  for t in "${targets[@]}"; do fuzz_one "$t" || failed+=("$t"); done
  if ((${#failed[@]})); then
    echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
    return 1
  fi
  echo "fuzz: ${#targets[@]} target(s), ${SECONDS_PER_TARGET} s each, no crash"
}

phase setup do_setup
phase "fuzz configure" fuzz_configure
phase "fuzz build" fuzz_build
phase "fuzz run" fuzz_all
