#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# `cuzk bench prove` of two builds of cuzk in turn on one GPU, so that a change's time is compared
# with the time before it in one run: A B at each log size, then B A, and so on (ABBA), so that a
# drift of the card over the run falls on both alike. Each run is its own process (its own key and
# circuit), and its figure is the bench's median total over its reps.
#
#   scripts/gpu/prove_ab.sh A_CUZK B_CUZK "20 24" ROUNDS [more bench prove arguments]
#
# Prints one line per run, `run label=A|B log_size=K round=R total_median_ms=T wall_s=S`, and per
# log size `compare log_size=K A_ms=... B_ms=... B_over_A=...` from the medians of each side's
# runs. Each run's whole output goes to $OUT/prove_ab.log (or prove_ab.log here). With DEADLINE (a
# time in seconds since the epoch) set, no run starts that would likely end after it (the last
# run at that size is the estimate).
set -uo pipefail
a=$1 b=$2 sizes=$3 rounds=$4
shift 4
log=${OUT:-.}/prove_ab.log
declare -A results last_wall
run() {  # label binary log_size round
  local label=$1 bin=$2 k=$3 round=$4 now t0 t1 total
  shift 4
  now=$(date +%s)
  if [[ -n ${DEADLINE:-} ]] && ((now + ${last_wall[$k]:-0} > DEADLINE)); then
    echo "skip label=$label log_size=$k round=$round (deadline)"
    return
  fi
  t0=$(date +%s.%N)
  echo "==== $label log_size=$k round=$round: $bin bench prove --curve bls12-381 --key random --log-size $k $*" >>"$log"
  "$bin" bench prove --curve bls12-381 --key random --log-size "$k" "$@" >"$log.run" 2>&1
  local rc=$?
  cat "$log.run" >>"$log"
  t1=$(date +%s.%N)
  total=$(awk '/^total \(witness in, proof out\)/ {print $(NF-2)}' "$log.run")
  last_wall[$k]=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", b - a}')
  echo "run label=$label log_size=$k round=$round rc=$rc total_median_ms=${total:-none} wall_s=${last_wall[$k]}"
  [[ -n $total ]] && results[$label,$k]+="$total "
}
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{v[NR]=$1} END {if (NR==0) print "none"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
for ((r = 1; r <= rounds; ++r)); do
  for k in $sizes; do
    if ((r % 2)); then
      run A "$a" "$k" "$r" "$@"
      run B "$b" "$k" "$r" "$@"
    else
      run B "$b" "$k" "$r" "$@"
      run A "$a" "$k" "$r" "$@"
    fi
  done
done
for k in $sizes; do
  ma=$(echo "${results[A,$k]:-}" | median)
  mb=$(echo "${results[B,$k]:-}" | median)
  ratio=none
  [[ $ma != none && $mb != none ]] && ratio=$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.4f", b / a}')
  echo "compare log_size=$k A_ms=$ma (${results[A,$k]:-}) B_ms=$mb (${results[B,$k]:-}) B_over_A=$ratio"
done
rm -f "$log.run"
