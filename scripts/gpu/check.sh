#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The GPU kernels' check: configure and build the CUDA targets (or use prebuilt ones), run the
# tests labelled `gpu`, keep the logs. Run from anywhere inside the repository; logs go to $OUT or,
# without it, build-gpu/logs.
#
# Where GoogleTest is not installed, copy Debian's /usr/src/googletest to .deps/googletest
# beforehand (.deps/ is git-ignored) or point CUZK_GTEST_SOURCE_DIR elsewhere. Where GMP is not
# installed, the GMP-checked CPU field tests are not built (CMake skips them); only the gpu targets
# are built, so that the machine's time goes on running them. CUZK_GPU_PREBUILT=1 runs the binaries
# already in build-gpu instead of building.
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-build-gpu/logs}"
mkdir -p "$out"
gtest_src="${CUZK_GTEST_SOURCE_DIR:-$PWD/.deps/googletest}"
gen=()
if command -v ninja >/dev/null; then gen=(-G Ninja); fi

{
  echo "== $(date -u +%FT%TZ) $(uname -m), $(nproc) cores"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv || true
  nvcc --version | tail -n 2
  cmake --version | head -n 1
} 2>&1 | tee "$out/machine.log"

t0=$(date +%s)
bin=build-gpu/src/gpu
cuzk=build-gpu/src/apps/cuzk
if [[ "${CUZK_GPU_PREBUILT:-0}" == 1 ]] && "$bin/gpu_tests" --gtest_list_tests >/dev/null 2>&1 &&
  [[ -x "$cuzk" ]]; then
  echo "== using the prebuilt binaries" | tee "$out/build.log"
  direct=1
else
  cmake -S . -B build-gpu "${gen[@]}" -DCUZK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_BUILD_BENCH=OFF \
    -DCUZK_GTEST_SOURCE_DIR="$gtest_src" 2>&1 | tee "$out/configure.log"
  cmake --build build-gpu -j"$(nproc)" --target cuzk_gpu gpu_tests cuzk 2>&1 | tee "$out/build.log"
  direct=0
fi
t1=$(date +%s)

# -V keeps the output of passing tests too: the throughput lines are in it.
set +e
if [[ $direct == 1 ]]; then
  "$bin/gpu_tests" ${CUZK_GPU_TEST_FILTER:+--gtest_filter="$CUZK_GPU_TEST_FILTER"} 2>&1 | sed 's/^/1: /' | tee "$out/ctest.log"
  rc=${PIPESTATUS[0]}
else
  ctest --test-dir build-gpu -L gpu -V 2>&1 | tee "$out/ctest.log"
  rc=${PIPESTATUS[0]}
fi
if [[ $rc != 0 ]] && command -v compute-sanitizer >/dev/null; then
  timeout 120 compute-sanitizer --print-limit 20 "$bin/gpu_tests" --gtest_filter='*Small*' 2>&1 |
    tail -n 80 >"$out/sanitizer.log"
fi
# CUZK_GPU_BENCH_WHAT picks the benchmarks (default: all; msm-g2 is `cuzk bench msm --group g2`);
# G2 stops at 2^22, the largest size its benchmark table has.
if [[ "${CUZK_GPU_BENCH:-1}" == 1 ]]; then
  for what in ${CUZK_GPU_BENCH_WHAT:-ntt msm msm-g2}; do
    sizes=16,18,20,22,24
    args=("$what")
    if [[ $what == msm-g2 ]]; then
      sizes=16,18,20,22
      args=(msm --group g2)
    fi
    for curve in bn254 bls12-381; do
      "$cuzk" bench "${args[@]}" --curve "$curve" --log-size "$sizes" --reps 7 2>&1 | tee -a "$out/bench.log"
    done
  done
fi
set -e
t2=$(date +%s)

{
  echo "== summary"
  echo "build_s=$((t1 - t0)) test_s=$((t2 - t1)) ctest_rc=$rc"
  grep -E '^[0-9]+: gpu_field_mul ' "$out/ctest.log" | sed 's/^[0-9]*: //' || true
  grep -E 'tests passed|tests failed|\(Failed\)|\(Skipped\)|PASSED|FAILED' "$out/ctest.log" || true
  if [[ -f "$out/bench.log" ]]; then cat "$out/bench.log"; fi
} 2>&1 | tee "$out/summary.log"
exit "$rc"
