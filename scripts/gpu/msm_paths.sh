#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The MSM accumulation comparison through `cuzk bench msm`, after scripts/gpu/check.sh has built
# (or been given, CUZK_GPU_PREBUILT=1) build-gpu/src/apps/cuzk: G1 of both curves with the affine
# rounds and with XYZZ runs in 1, 2 and 4 point ranges (chunks) at 2^16..2^24, scalars from pinned
# host memory and from device memory, then (where ncu is installed) the hardware counters of the
# affine round kernels and the XYZZ accumulation at 2^22. Logs go to $OUT (or build-gpu/logs).
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-build-gpu/logs}"
mkdir -p "$out"
cuzk=build-gpu/src/apps/cuzk
for curve in bn254 bls12-381; do
  "$cuzk" bench msm --curve "$curve" --log-size 16,18,20,22,24 --reps 7 --accumulation affine 2>&1 | tee -a "$out/paths.log"
  "$cuzk" bench msm --curve "$curve" --log-size 16,18,20,22,24 --reps 7 --accumulation xyzz --chunks 1,2,4 \
    --scalars host,device 2>&1 | tee -a "$out/paths.log"
done
if command -v ncu >/dev/null && [[ "${CUZK_GPU_NCU:-1}" == 1 ]]; then
  timeout 150 ncu --clock-control none -k 'regex:forward_kernel|backward_kernel|invert_kernel|accumulate_kernel' \
    -c 8 --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis \
    "$cuzk" bench msm --curve bls12-381 --log-size 22 --reps 1 --accumulation affine >"$out/ncu_affine.log" 2>&1
  timeout 60 ncu --clock-control none -k 'regex:accumulate_kernel' -c 1 --section SpeedOfLight --section Occupancy \
    "$cuzk" bench msm --curve bls12-381 --log-size 22 --reps 1 --accumulation xyzz --chunks 1 >"$out/ncu_xyzz.log" 2>&1
  grep -E "^  [a-z_]+kernel|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|L2 Hit|L1/TEX Hit" \
    "$out/ncu_affine.log" "$out/ncu_xyzz.log" | cut -c1-160 >"$out/ncu_summary.log"
fi
