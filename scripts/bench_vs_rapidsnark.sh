#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# cuzk against rapidsnark (and, with --snarkjs, snarkjs) on the same BN254 circuits, the same
# machine and the same thread count: wall time and peak resident memory of one whole proof
# (key loading included) and its CPU time, best of --reps runs each, interleaved so that
# background load hits both.
#
#   scripts/bench_vs_rapidsnark.sh [--threads N] [--reps R] [--snarkjs] [CASE...]
#     CASE  chain          the 65,659-constraint Poseidon chain (tests/data), 2^17 domain (default)
#           synthetic:K    `cuzk setup --synthetic --log-size K --witness boolean` (2^K - 2
#                          constraints, ~90% of the witness 0/1, as in hash circuits)
#     default cases: chain synthetic:18
#
# rapidsnark: no Linux build of it can be fetched here, but its npm package
# @iden3/react-native-rapidsnark ships the Android x86_64 library (with ffiasm's assembly field
# arithmetic). `npm pack` fetches it once into $BUILD_DIR/rapidsnark, and bench/rapidsnark/
# builds the small bionic-to-glibc adapter and the `prover`-style driver that run it. Its thread
# pool is sized by the adapter (SHIM_NPROC = --threads); cuzk gets --threads. Both keys are the
# same file (made by `cuzk setup`), both proofs are checked with `cuzk verify`.
#
# Prints one line per run and a summary table (markdown, for docs/BENCHMARKS.md).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
[[ $BUILD_DIR = /* ]] || BUILD_DIR=$ROOT/$BUILD_DIR
CUZK=$BUILD_DIR/src/apps/cuzk
SNARKJS=$ROOT/tools/node/node_modules/.bin/snarkjs
RS_PACKAGE=@iden3/react-native-rapidsnark@0.0.1-alpha.3
RS=$BUILD_DIR/rapidsnark
WORK=$BUILD_DIR/bench_vs_rapidsnark

THREADS=$(nproc)
REPS=3
WITH_SNARKJS=0
CASES=()
while (($#)); do
  case $1 in
    --threads) THREADS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --snarkjs) WITH_SNARKJS=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) CASES+=("$1"); shift ;;
  esac
done
((${#CASES[@]})) || CASES=(chain synthetic:18)

[[ -x $CUZK ]] || { echo "error: $CUZK is not built (scripts/run.sh builds it)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "error: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
mkdir -p "$RS" "$WORK"

# ---- rapidsnark, once ---------------------------------------------------------------------------
if [[ ! -s $RS/librapidsnark.so ]]; then
  echo "fetching $RS_PACKAGE (npm pack) ..."
  (cd "$RS" && npm pack --silent "$RS_PACKAGE" >/dev/null)
  tar -xzf "$RS"/iden3-react-native-rapidsnark-*.tgz -C "$RS" package/android/src/jniLibs/x86_64/librapidsnark.so
  cp "$RS/package/android/src/jniLibs/x86_64/librapidsnark.so" "$RS/"
fi
if [[ ! -x $RS/rapidsnark_prover || $ROOT/bench/rapidsnark/bionic_shim.c -nt $RS/libc.so ]]; then
  bash "$ROOT/bench/rapidsnark/build_shim.sh" "$RS"
fi

# Runs a command under /usr/bin/time; prints "wall_s rss_mb cpu_s" (cpu = user + system: on a
# shared machine the wall time includes waiting for a core, the CPU time does not).
measure() {
  local log=$WORK/time.log
  /usr/bin/time -f '%e %M %U %S' -o "$log" "$@" >"$WORK/last.out" 2>&1 || { cat "$WORK/last.out" >&2; return 1; }
  awk '{printf "%s %.0f %.2f\n", $1, $2 / 1024, $3 + $4}' "$log"
}

declare -A BEST_T BEST_M BEST_C
record() {  # case tool wall rss cpu
  local k="$1|$2"
  if [[ -z ${BEST_T[$k]:-} ]] || awk "BEGIN{exit !($3 < ${BEST_T[$k]})}"; then BEST_T[$k]=$3; fi
  if [[ -z ${BEST_C[$k]:-} ]] || awk "BEGIN{exit !($5 < ${BEST_C[$k]})}"; then BEST_C[$k]=$5; fi
  if [[ -z ${BEST_M[$k]:-} ]] || (($4 > ${BEST_M[$k]})); then BEST_M[$k]=$4; fi
}

DESC=()
for c in "${CASES[@]}"; do
  dir=$WORK/$c
  mkdir -p "$dir"
  if [[ $c == chain ]]; then
    wtns=$ROOT/tests/data/snarkjs/bn128/poseidon_chain/circuit.wtns
    if [[ ! -s $dir/circuit.zkey ]]; then
      xz -dc "$ROOT/tests/data/snarkjs/bn128/poseidon_chain/circuit.r1cs.xz" >"$dir/circuit.r1cs"
      "$CUZK" setup "$dir/circuit.r1cs" "$dir/circuit.zkey" --vk "$dir/vk.json" >/dev/null
    fi
    DESC+=("$c|Poseidon chain, 65,659 constraints, 2^17 domain")
  elif [[ $c == synthetic:* ]]; then
    k=${c#synthetic:}
    wtns=$dir/circuit.wtns
    if [[ ! -s $dir/circuit.zkey ]]; then
      echo "cuzk setup --synthetic --log-size $k (once) ..."
      "$CUZK" setup --synthetic --log-size "$k" --witness boolean --curve bn254 "$dir/circuit.zkey" "$wtns" \
        --vk "$dir/vk.json" >/dev/null
    fi
    DESC+=("$c|synthetic, $((2 ** k - 2)) constraints, ~90% 0/1 witness, 2^$k domain")
  else
    echo "error: unknown case $c" >&2
    exit 2
  fi
  zkey=$dir/circuit.zkey
  echo "== $c: $(du -h "$zkey" | cut -f1) zkey, $THREADS threads"
  for ((i = 1; i <= REPS; i++)); do
    read -r t m cpu < <(measure "$CUZK" --threads "$THREADS" prove "$zkey" "$wtns" "$dir/cuzk_proof.json" "$dir/cuzk_public.json")
    "$CUZK" verify "$dir/vk.json" "$dir/cuzk_public.json" "$dir/cuzk_proof.json" >/dev/null
    echo "  cuzk        run $i: ${t} s, ${m} MB peak RSS, ${cpu} s CPU"
    record "$c" cuzk "$t" "$m" "$cpu"
    read -r t m cpu < <(measure env LD_LIBRARY_PATH="$RS" SHIM_NPROC="$THREADS" "$RS/rapidsnark_prover" "$RS" "$zkey" "$wtns" \
      "$dir/rs_proof.json" "$dir/rs_public.json")
    "$CUZK" verify "$dir/vk.json" "$dir/rs_public.json" "$dir/rs_proof.json" >/dev/null
    echo "  rapidsnark  run $i: ${t} s, ${m} MB peak RSS, ${cpu} s CPU"
    record "$c" rapidsnark "$t" "$m" "$cpu"
  done
  if ((WITH_SNARKJS)) && [[ -x $SNARKJS ]]; then
    read -r t m cpu < <(measure "$SNARKJS" groth16 prove "$zkey" "$wtns" "$dir/sj_proof.json" "$dir/sj_public.json")
    "$CUZK" verify "$dir/vk.json" "$dir/sj_public.json" "$dir/sj_proof.json" >/dev/null
    echo "  snarkjs     run 1: ${t} s, ${m} MB peak RSS, ${cpu} s CPU"
    record "$c" snarkjs "$t" "$m" "$cpu"
  fi
done

echo
echo "| circuit | prover | wall (best of $REPS) | CPU user+sys (best) | peak RSS (max) | threads |"
echo "|---|---|---|---|---|---|"
for d in "${DESC[@]}"; do
  c=${d%%|*}
  for tool in cuzk rapidsnark snarkjs; do
    k="$c|$tool"
    [[ -n ${BEST_T[$k]:-} ]] || continue
    echo "| ${d#*|} | $tool | ${BEST_T[$k]} s | ${BEST_C[$k]} s | ${BEST_M[$k]} MB | $THREADS |"
  done
done
