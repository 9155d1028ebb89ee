#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The GPU prover's check: the `gpu_groth16_tests` (GPU proof == CPU proof, verification,
# 1000-proof memory check), then `cuzk bench prove`'s per-phase tables. Logs go to $OUT or, without
# it, build-g16/logs.
#
# Binaries: CUZK_G16_BIN (default build-g16) holding gpu_groth16_tests and cuzk (a CUDA build),
# built on another machine (they link the CUDA runtime statically; `ldd` should list only system
# libraries); where they do not run, everything is built into build-gpu-g16, which needs
# GoogleTest's sources as scripts/gpu/check.sh describes.
#
# CUZK_PROVE_BENCH: the bench cases, "curve:log_size:witness:key" separated by spaces.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-build-g16/logs}"
mkdir -p "$out"
bin="${CUZK_G16_BIN:-build-g16}"
cases="${CUZK_PROVE_BENCH:-bls12-381:20:dense:real bn254:20:dense:real bls12-381:20:boolean:random}"

{
  echo "== $(date -u +%FT%TZ) $(uname -m), $(nproc) cores"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv || true
} 2>&1 | tee "$out/machine.log"

t0=$(date +%s)
cuzk="$bin/cuzk"
if ! "$bin/gpu_groth16_tests" --gtest_list_tests >/dev/null 2>&1 || [[ ! -x "$cuzk" ]]; then
  echo "== building (the prebuilt binaries are missing or do not run here)" | tee "$out/build.log"
  gen=()
  if command -v ninja >/dev/null; then gen=(-G Ninja); fi
  cmake -S . -B build-gpu-g16 "${gen[@]}" -DCUZK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_BUILD_BENCH=OFF \
    -DCUZK_GTEST_SOURCE_DIR="${CUZK_GTEST_SOURCE_DIR:-$PWD/.deps/googletest}" >>"$out/build.log" 2>&1
  cmake --build build-gpu-g16 -j"$(nproc)" --target gpu_groth16_tests cuzk >>"$out/build.log" 2>&1 ||
    { tail -n 40 "$out/build.log"; exit 1; }
  bin=build-gpu-g16/src/groth16/gpu
  cuzk=build-gpu-g16/src/apps/cuzk
fi
t1=$(date +%s)

export CUZK_TEST_DATA_DIR="$PWD/tests/data"
timeout "${CUZK_TEST_TIMEOUT:-300}" "$bin/gpu_groth16_tests" 2>&1 | tee "$out/tests.log"
rc=${PIPESTATUS[0]}
t2=$(date +%s)

for c in $cases; do
  IFS=: read -r curve k witness key <<<"$c"
  timeout "${CUZK_BENCH_TIMEOUT:-200}" "$cuzk" bench prove --curve "$curve" --log-size "$k" \
    --witness "$witness" --key "$key" --reps "${CUZK_BENCH_RUNS:-5}" 2>&1 | tee -a "$out/bench.log"
  echo | tee -a "$out/bench.log"
done
t3=$(date +%s)

{
  echo "== summary"
  echo "build_s=$((t1 - t0)) test_s=$((t2 - t1)) bench_s=$((t3 - t2)) tests_rc=$rc"
  grep -E '^gpu_prove_memory|PASSED|FAILED|SKIPPED|^\[  FAILED' "$out/tests.log" || true
  if [[ -f "$out/bench.log" ]]; then cat "$out/bench.log"; fi
} 2>&1 | tee "$out/summary.log"
exit "$rc"
