#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# `cuzk bench ntt|msm|prove` (src/apps/gpu_bench_command.hpp), end to end through the binary.
#
#   cli_bench.sh CUZK args   the arguments are checked the same way in every build: a bad curve, a
#                            size out of range, zero repetitions, a device that does not exist each
#                            give a message naming the option and an exit of 1..127, never a crash;
#                            needs no GPU (a build without CUDA or a machine without a device says so)
#   cli_bench.sh CUZK gpu    tiny runs of each benchmark (2^10) whose tables must parse, with every
#                            time positive and min <= median <= max; exits 77 (skipped) with a
#                            message where there is no usable device
set -uo pipefail

CUZK=$(realpath "$1")
MODE=$2

source "$(dirname "${BASH_SOURCE[0]}")/expect_error.sh"

# check_table NAME FIRST_STATS_FIELD ROW_REGEX FILE: every line matching ROW_REGEX has median, min
# and max at fields FIRST.. FIRST+2, all positive, min <= median <= max; at least one such line.
check_table() {
  local name=$1 f=$2 re=$3 file=$4 bad
  bad=$(awk -v f="$f" -v re="$re" '
    $0 ~ re { n++; med = $(f); lo = $(f + 1); hi = $(f + 2)
              if (!(med > 0 && lo > 0 && hi > 0 && lo <= med && med <= hi)) { print "bad row: " $0; b++ } }
    END { if (n == 0) print "no rows matching " re; }' "$file")
  if [[ -n $bad ]]; then
    printf 'FAIL %s:\n%s\n--- output:\n%s\n' "$name" "$bad" "$(cat "$file")"
    FAILS=$((FAILS + 1))
  else
    printf 'ok   %s (%d rows)\n' "$name" "$(grep -cE -- "$re" "$file")"
    PASSES=$((PASSES + 1))
  fi
}

finish() {
  echo "$PASSES passed, $FAILS failed"
  ((FAILS == 0))
  exit
}

if [[ $MODE == args ]]; then
  help=$("$CUZK" bench --help 2>&1)
  for sub in ntt msm prove; do
    if grep -qE "^  $sub " <<<"$help"; then
      PASSES=$((PASSES + 1))
    else
      printf 'FAIL bench --help does not list %s:\n%s\n' "$sub" "$help"
      FAILS=$((FAILS + 1))
    fi
  done
  expect_error "bench: no subcommand" "subcommand" "$CUZK" bench
  expect_error "ntt: bad curve" "--curve" "$CUZK" bench ntt --curve secp256k1 --log-size 10
  expect_error "msm: bad curve" "--curve" "$CUZK" bench msm --curve bls12-377 --log-size 10
  expect_error "prove: no curve" "--curve" "$CUZK" bench prove --log-size 10
  expect_error "ntt: no log size" "--log-size" "$CUZK" bench ntt --curve bn254
  expect_error "ntt: log size 0" "expected 1..28" "$CUZK" bench ntt --curve bn254 --log-size 0
  expect_error "ntt: log size 29" "expected 1..28" "$CUZK" bench ntt --curve bls12-381 --log-size 20,29
  expect_error "ntt: log size not a number" "--log-size" "$CUZK" bench ntt --curve bn254 --log-size big
  expect_error "msm g1: log size 29" "expected 1..28" "$CUZK" bench msm --curve bn254 --log-size 29
  expect_error "msm g2: log size 27" "expected 1..26" "$CUZK" bench msm --curve bn254 --group g2 --log-size 27
  expect_error "msm: bad points" "--points" "$CUZK" bench msm --curve bn254 --log-size 10 --points disk
  expect_error "msm: chunk points, resident" "only with --points streamed" \
    "$CUZK" bench msm --curve bn254 --log-size 10 --chunk-points 100
  expect_error "msm: bad group" "--group" "$CUZK" bench msm --curve bn254 --group g3 --log-size 10
  expect_error "msm: bad accumulation" "--accumulation" \
    "$CUZK" bench msm --curve bn254 --log-size 10 --accumulation affine,jacobian
  expect_error "msm: bad scalars" "--scalars" "$CUZK" bench msm --curve bn254 --log-size 10 --scalars disk
  expect_error "msm: 65 chunks" "--chunks" "$CUZK" bench msm --curve bn254 --log-size 10 --chunks 65
  expect_error "prove: log size 1" "expected 2..28" "$CUZK" bench prove --curve bn254 --log-size 1
  expect_error "prove: log size 29" "expected 2..28" "$CUZK" bench prove --curve bn254 --log-size 29
  expect_error "prove: bad witness" "--witness" "$CUZK" bench prove --curve bn254 --log-size 10 --witness sparse
  expect_error "prove: bad synthesis" "--synthesis" "$CUZK" bench prove --curve bn254 -k 10 --synthesis gpu
  expect_error "prove: bad stream" "--stream: expected none, all or a list of a, b1, b2, c, h; found 'b3'" \
    "$CUZK" bench prove --curve bn254 -k 10 --stream a,b3
  expect_error "prove: chunk points" "--chunk-points: expected 0..67108864" \
    "$CUZK" bench prove --curve bn254 -k 10 --chunk-points 67108865
  expect_error "prove: partitions" "--partitions: expected 1..64, found 65" \
    "$CUZK" bench prove --curve bn254 -k 10 --partitions 65
  expect_error "prove: bad b2" "--b2" "$CUZK" bench prove --curve bn254 -k 10 --b2 after
  expect_error "reps 0" "--reps" "$CUZK" bench ntt --curve bn254 --log-size 10 --reps 0
  expect_error "reps 1001" "--reps" "$CUZK" bench msm --curve bn254 --log-size 10 --reps 1001
  expect_error "device -1" "--device" "$CUZK" bench ntt --curve bn254 --log-size 10 --device -1
  # Valid arguments and a device that does not exist: a CUDA build names the ordinal (with the
  # count where a driver answers), a build without CUDA says so.
  for sub in ntt msm prove; do
    out=$("$CUZK" bench "$sub" --curve bn254 --log-size 10 --reps 1 --device 99 2>&1)
    rc=$?
    if ((rc == 0 || rc >= 128)) || ! grep -qiE "CUDA device 99|built without CUDA" <<<"$out"; then
      printf 'FAIL %s on device 99: exit %d:\n%s\n' "$sub" "$rc" "$out"
      FAILS=$((FAILS + 1))
    else
      printf 'ok   %-40s %s\n' "$sub: device 99" "$(head -n1 <<<"$out" | cut -c1-110)"
      PASSES=$((PASSES + 1))
    fi
  done
  finish
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
probe=$("$CUZK" bench ntt --curve bn254 --log-size 2 --reps 1 2>&1)
if grep -qiE "no CUDA device is usable|does not exist|built without CUDA" <<<"$probe"; then
  echo "SKIP: no usable CUDA device here: $probe"
  exit 77
fi

# run NAME FILE CMD...: the command exits 0, its output kept in FILE.
run() {
  local name=$1 file=$2 rc=0
  shift 2
  "$@" >"$file" 2>&1 || rc=$?
  if ((rc != 0)); then
    printf 'FAIL %s: exit %d:\n%s\n' "$name" "$rc" "$(cat "$file")"
    FAILS=$((FAILS + 1))
    return 1
  fi
}

if run "ntt" "$WORK/ntt" "$CUZK" bench ntt --curve bn254 --log-size 8,10 --reps 3; then
  check_table "ntt: 2 sizes x 7 transforms" 4 \
    '^bn254 +(8|10) +(fwd_nr|inv_rn|fwd_nn|coset_nr|inv_nr|coset_rn|fwd_rn) ' "$WORK/ntt"
  [[ $(grep -cE '^bn254 ' "$WORK/ntt") == 14 ]] || { echo "FAIL ntt: want 14 rows"; FAILS=$((FAILS + 1)); }
fi
if run "msm g1" "$WORK/msm" "$CUZK" bench msm --curve bls12-381 --log-size 10 --reps 3 --accumulation xyzz,affine \
  --scalars host,device; then
  check_table "msm g1: 2 accumulations x 2 scalar places" 6 '^bls12-381 +G1 +10 ' "$WORK/msm"
  [[ $(grep -cE '^bls12-381 +G1 ' "$WORK/msm") == 4 ]] || { echo "FAIL msm g1: want 4 rows"; FAILS=$((FAILS + 1)); }
fi
if run "msm g2" "$WORK/msm2" "$CUZK" bench msm --curve bn254 --group g2 --log-size 10 --reps 3; then
  check_table "msm g2" 6 '^bn254 +G2 +10 ' "$WORK/msm2"
fi
if run "msm streamed" "$WORK/msm3" "$CUZK" bench msm --curve bn254 --log-size 10 --reps 3 --points streamed \
  --chunk-points 300; then
  check_table "msm streamed" 6 '^bn254 +G1 +10 ' "$WORK/msm3"
  grep -q "streamed in ranges of 300" "$WORK/msm3" || { echo "FAIL msm streamed: header"; FAILS=$((FAILS + 1)); }
fi
if run "prove (real key)" "$WORK/prove" "$CUZK" bench prove --curve bls12-381 --log-size 10 --reps 3; then
  # The phase names have spaces; the rows end in median, min, max, so check them from the end:
  # h2d, its GB/s, the NTTs, five MSMs and the total.
  awk '/^(MSM |NTTs|h2d|total)/ { print $(NF-2), $(NF-1), $NF, $0 }' "$WORK/prove" >"$WORK/prove_rows"
  check_table "prove: h2d, GB/s, NTTs, MSMs, total" 1 '.' "$WORK/prove_rows"
  [[ $(wc -l <"$WORK/prove_rows") == 9 ]] || { echo "FAIL prove: want 9 such rows"; FAILS=$((FAILS + 1)); }
  grep -q "proof verified" "$WORK/prove" || { echo "FAIL prove: not verified"; FAILS=$((FAILS + 1)); }
  grep -q "B2 beside A, B1, C" "$WORK/prove" || { echo "FAIL prove: B2 not beside by default"; FAILS=$((FAILS + 1)); }
fi
if run "prove (random key, host synthesis)" "$WORK/prove2" "$CUZK" bench prove --curve bn254 --log-size 10 --reps 2 \
  --key random --witness boolean --synthesis host-pinned --b2 in-turn; then
  awk '/^(MSM |NTTs|h2d|total)/ { print $(NF-2), $(NF-1), $NF, $0 }' "$WORK/prove2" >"$WORK/prove2_rows"
  check_table "prove host synthesis: phases" 1 '.' "$WORK/prove2_rows"
  grep -q "B2 in turn" "$WORK/prove2" || { echo "FAIL prove: --b2 in-turn not taken"; FAILS=$((FAILS + 1)); }
fi
finish
