#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The streamed-key check on a machine with an NVIDIA GPU, from binaries built on another machine
# and copied beside the working tree (BUNDLE/bin: cuzk, gpu_tests, gpu_groth16_tests, optionally engine_gpu_tests; BUNDLE/lib: their
# libraries):
#  1. the MSM tests (resident and streamed points against the CPU) and the GPU prover's tests
#     (streamed keys' proofs equal to the CPU prover's, bit for bit);
#  2. `cuzk bench prove` on BLS12-381 at 2^24, resident and with every vector streamed, mostly-0/1
#     and dense, in the same call;
#  3. the sizes that do not fit whole: 2^26 and 2^27 mostly-0/1 with every vector streamed,
#     with the device's memory sampled by nvidia-smi meanwhile;
#  4. (step "budget") 2^25 and 2^26 (BUDGET_LOGS) with a 16 GiB device budget (a 16 GB card's),
#     synthesis on the host: the budget makes the NTT's twiddles compact and streams the points,
#     and where three of a, b, c do not fit beside the witness, keeps two (2^27 needs it). BUDGET_ABC
#     (default "chosen": the budget's choice; "two", "three") runs each size once per choice;
#  5. (step "batch", run before "budget") a PoRep-shaped batch: 10 partitions of 2^26 mostly-0/1
#     with every vector streamed.
#  6. (step "twiddles") 2^24 resident with compact twiddles (docs/gpu/ntt.md, 'Compact plans'), to
#     set beside step 2's resident rows.
#  7. (step "g2") `cuzk bench msm --group g2` on both curves, points resident (G2_LOGS, default
#     20,22,24) and streamed (2^24), scalars on the device as a proof's.
#  8. (step "largest") the largest domains' tests: the NTT and the MSM at BN254's 2^28.
# B2 (default "beside"; "beside in-turn" for both) runs steps 2, 3 and 5 once per place of B2's
# MSM (`--b2`), the rows named with it.
# WITNESSES (default "boolean dense"), SMALL_REPS and LARGE_REPS narrow steps 2, 3 and 6; PLACES
# (default "streamed"; "chosen" lets the device budget pick what streams) steps 3 and 5.
# The logs are packed after every step into $OUT/logs.tar.xz (a few files to copy back rather than
# dozens), with summary.log beside it. Steps are chosen by STEPS (default "tests small twiddles large budget
# batch"),
# the large sizes by LARGE (default "26 27").
#
#   bash scripts/gpu/stream_check.sh build-dev
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bundle=${1:-build-dev}
dest=${OUT:-build-gpu/logs}
out=$(mktemp -d)/logs
mkdir -p "$out" "$dest"
pack() { tar -C "$(dirname "$out")" -cJf "$dest/logs.tar.xz" logs; cp "$out/summary.log" "$dest/" 2>/dev/null; }
export LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUZK_TEST_DATA_DIR="$PWD/tests/data"
bin="$PWD/$bundle/bin"
steps=" ${STEPS:-tests small twiddles large budget batch} "
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >"$out/machine.log" 2>&1
free -g >>"$out/machine.log"

peak() { sort -n "$1" | tail -1; }

if [[ $steps == *" tests "* ]]; then
  "$bin/gpu_tests" --gtest_filter="${MSM_FILTER:-*Msm*}" >"$out/msm_tests.log" 2>&1
  echo "msm tests rc=$?" | tee -a "$out/summary.log"
  "$bin/gpu_groth16_tests" >"$out/groth16_tests.log" 2>&1
  echo "groth16 tests rc=$?" | tee -a "$out/summary.log"
  if [[ -x "$bin/engine_gpu_tests" ]]; then
    "$bin/engine_gpu_tests" >"$out/engine_gpu_tests.log" 2>&1
    echo "engine gpu tests rc=$?" | tee -a "$out/summary.log"
  fi
  pack
fi

bench() {
  local name=$1
  shift
  # The device's used memory every 100 ms while it runs (nvidia-smi itself in the background, so
  # that killing $! stops it).
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 >"$out/$name.mem" 2>/dev/null &
  local sampler=$!
  "$bin/cuzk" bench prove --curve bls12-381 --key random "$@" >"$out/$name.log" 2>&1
  echo "$name rc=$? device peak $(peak "$out/$name.mem") MiB; $*" | tee -a "$out/summary.log"
  kill "$sampler" 2>/dev/null
  wait "$sampler" 2>/dev/null
  pack
}

if [[ $steps == *" g2 "* ]]; then
  for curve in bn254 bls12-381; do
    "$bin/cuzk" bench msm --curve "$curve" --group g2 --log-size "${G2_LOGS:-20,22,24}" \
      --scalars device --reps 5 >"$out/g2_${curve}_resident.log" 2>&1
    echo "g2 $curve resident rc=$?" | tee -a "$out/summary.log"
    "$bin/cuzk" bench msm --curve "$curve" --group g2 --log-size 24 --scalars device --reps 3 \
      --points streamed >"$out/g2_${curve}_streamed.log" 2>&1
    echo "g2 $curve streamed rc=$?" | tee -a "$out/summary.log"
    pack
  done
fi
if [[ $steps == *" largest "* ]]; then
  "$bin/gpu_tests" --gtest_filter='*Largest*' >"$out/largest_tests.log" 2>&1
  echo "largest-domain tests rc=$?" | tee -a "$out/summary.log"
  pack
fi
if [[ $steps == *" small "* ]]; then
  for w in ${WITNESSES:-boolean dense}; do
    for b2 in ${B2:-beside}; do
      bench "p24_${w}_resident_b2${b2}" --log-size 24 --witness "$w" --reps "${SMALL_REPS:-5}" --b2 "$b2"
      bench "p24_${w}_streamed_b2${b2}" --log-size 24 --witness "$w" --reps "${SMALL_REPS:-5}" --stream all --b2 "$b2"
    done
  done
fi
if [[ $steps == *" twiddles "* ]]; then
  for w in ${WITNESSES:-boolean dense}; do
    bench "p24_${w}_compact" --log-size 24 --witness "$w" --reps "${SMALL_REPS:-5}" --twiddles compact
  done
fi
# PLACES: how the large and batch steps place the key: "streamed" (every vector streamed) and/or
# "chosen" (the bench's device budget picks what streams, choose_streamed).
# LARGE_BUDGET_MIB gives the "chosen" placements a device budget: without one the bench keeps every
# vector resident, which at 2^27 does not fit.
place_args() {
  if [[ $1 == streamed ]]; then
    echo "--stream all"
  elif [[ -n ${LARGE_BUDGET_MIB:-} ]]; then
    echo "--gpu-budget-mib $LARGE_BUDGET_MIB"
  fi
}
if [[ $steps == *" large "* ]]; then
  for k in ${LARGE:-26 27}; do
    for place in ${PLACES:-streamed}; do
      for b2 in ${B2:-beside}; do
        # shellcheck disable=SC2046
        bench "p${k}_boolean_${place}_b2${b2}" --log-size "$k" --witness boolean --reps "${LARGE_REPS:-2}" \
          --b2 "$b2" $(place_args "$place")
      done
    done
  done
fi
if [[ $steps == *" batch "* ]]; then
  for place in ${PLACES:-streamed}; do
    for b2 in ${B2:-beside}; do
      # shellcheck disable=SC2046
      bench "p26_boolean_${place}_x10_b2${b2}" --log-size 26 --witness boolean --reps 1 --partitions 10 \
        --b2 "$b2" $(place_args "$place")
    done
  done
fi
if [[ $steps == *" budget "* ]]; then
  # Synthesis on the host: the matrices stay off the device.
  for k in ${BUDGET_LOGS:-25 26}; do
    for abc in ${BUDGET_ABC:-chosen}; do
      abc_args=()
      [[ $abc == chosen ]] || abc_args=(--abc-on-device "$abc")
      bench "p${k}_boolean_budget16g_abc${abc}" --log-size "$k" --witness boolean --reps 2 --gpu-budget-mib 16384 \
        --synthesis host-pinned "${abc_args[@]}"
    done
  done
fi
exit 0
