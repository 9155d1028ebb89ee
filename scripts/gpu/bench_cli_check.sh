#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The GPU benchmarks through the `cuzk` command, under ~4 minutes on an H200: `cuzk bench ntt`
# (2^20 and 2^24, both curves), `cuzk bench msm` (G1 at 2^24 with scalars streamed from pinned
# memory and resident, both curves; G2 at 2^22, both curves) and `cuzk bench prove` (BLS12-381: 2^20
# dense with a real key, so the proof is verified; 2^24 dense and 2^24 mostly 0/1 with a random key,
# whose setup would take minutes).
#
#   scripts/gpu/bench_cli_check.sh DIR     DIR holds the `cuzk` binary (a CUDA build; it links the
#                                          CUDA runtime statically, so nothing else is needed there)
#
# Needs nothing from the repository: copy it next to the binary (with tests/interop/cli_bench.sh,
# whose tiny-table check then runs first) and run it from there. Writes to
# $OUT (or DIR/logs): bench.log (every table, in order) and run.log (the machine, the binary's
# libraries and each step's exit status and wall time). Each step has its own timeout so one slow
# step cannot eat the others' time; the exit status is non-zero when any step failed.
set -uo pipefail

dir=$(cd "${1:?usage: bench_cli_check.sh DIR (holding the cuzk binary)}" && pwd)
cuzk=$dir/cuzk
out=${OUT:-$dir/logs}
mkdir -p "$out"
bench=$out/bench.log
log=$out/run.log
: >"$bench"
failed=0

{
  echo "== $(date -u +%FT%TZ) $(uname -m), $(nproc) cores"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv 2>&1 || true
  echo "== ldd $cuzk"
  ldd "$cuzk" 2>&1
  echo "== cuzk bench --help"
  "$cuzk" bench --help 2>&1
} >"$log"

# step SECONDS ARGS...: `cuzk bench ARGS` with its table appended to bench.log; skipped (and
# counted as a failure) once the whole run has passed CUZK_BENCH_BUDGET_S (default 230) seconds.
step() {
  local limit=$1 t0 rc
  shift
  if (($(date +%s) - start > ${CUZK_BENCH_BUDGET_S:-230})); then
    echo "skipped (over the ${CUZK_BENCH_BUDGET_S:-230} s budget): cuzk bench $*" >>"$log"
    failed=1
    return
  fi
  t0=$(date +%s%N)
  echo "\$ cuzk bench $*" >>"$bench"
  timeout "$limit" "$cuzk" bench "$@" >>"$bench" 2>&1
  rc=$?
  echo >>"$bench"
  printf 'rc=%d wall=%dms  cuzk bench %s\n' "$rc" $((($(date +%s%N) - t0) / 1000000)) "$*" >>"$log"
  ((rc == 0)) || failed=1
}

start=$(date +%s)
# First, where tests/interop/cli_bench.sh was copied next to the binary: tiny runs of each
# benchmark whose tables must parse (seconds).
if [[ -f $dir/cli_bench.sh ]]; then
  t0=$(date +%s)
  bash "$dir/cli_bench.sh" "$cuzk" gpu >>"$log" 2>&1
  rc=$?
  echo "rc=$rc wall=$(($(date +%s) - t0))s  cli_bench.sh gpu (tiny tables)" >>"$log"
  ((rc == 0)) || failed=1
fi
for curve in bn254 bls12-381; do
  step 60 ntt --curve "$curve" --log-size 20,24 --reps 7
done
for curve in bn254 bls12-381; do
  step 90 msm --curve "$curve" --log-size 24 --reps 7 --scalars host,device
done
for curve in bn254 bls12-381; do
  step 60 msm --curve "$curve" --group g2 --log-size 22 --reps 5
done
step 90 prove --curve bls12-381 --log-size 20 --witness dense --key real --reps 5
step 90 prove --curve bls12-381 --log-size 24 --witness dense --key random --reps 3
step 90 prove --curve bls12-381 --log-size 24 --witness boolean --key random --reps 3
echo "total wall=$(($(date +%s) - start))s failed=$failed" >>"$log"
cat "$log" "$bench"
exit "$failed"
