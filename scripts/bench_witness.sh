#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The witness of a circom circuit of over a million constraints (bench/witness/, 2,000 chained
# Poseidon(2) hashes, 1,034,000 constraints) computed by `snarkjs wtns calculate` (Node) and by
# `cuzk wtns calculate` (the wasm compiled by wasm2c, docs/witness.md): wall time and peak resident
# memory of each whole command, best of --reps runs, interleaved so that background load hits both;
# then the one-time cost of compiling the wasm (an empty cache). The two .wtns must be identical.
#
#   scripts/bench_witness.sh [--reps R]
#
# The circuit is compiled once with circom2 (about two minutes, 0.8 GB) into
# $BUILD_DIR/bench_witness. Prints one line per run and a summary table (markdown).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
[[ $BUILD_DIR = /* ]] || BUILD_DIR=$ROOT/$BUILD_DIR
CUZK=$BUILD_DIR/src/apps/cuzk
NODE_MODULES=tools/node/node_modules
SNARKJS=$ROOT/$NODE_MODULES/.bin/snarkjs
CIRCOM=$ROOT/$NODE_MODULES/.bin/circom2
WORK=$BUILD_DIR/bench_witness
NAME=poseidon_chain_2000
REPS=3
while (($#)); do
  case $1 in
    --reps) REPS=$2; shift 2 ;;
    *) echo "usage: $0 [--reps R]" >&2; exit 2 ;;
  esac
done
[[ -x $CUZK ]] || { echo "no $CUZK: build it first (BUILD_DIR=$BUILD_DIR)" >&2; exit 1; }
[[ -x $SNARKJS && -x $CIRCOM ]] || { echo "snarkjs/circom2 missing: run scripts/setup.sh" >&2; exit 1; }

mkdir -p "$WORK"
WASM=$WORK/${NAME}_js/$NAME.wasm
if [[ ! -s $WASM ]]; then
  echo "compiling bench/witness/$NAME.circom with circom2 (once)"
  # circom2 runs under WASI with the working folder opened: paths must be relative to it.
  (cd "$ROOT" && "$CIRCOM" "bench/witness/$NAME.circom" --wasm -l "$NODE_MODULES" \
    -o "$(realpath -m --relative-to="$ROOT" "$WORK")" >"$WORK/circom.log")
fi
echo '{"in": ["1", "2"]}' >"$WORK/input.json"

# Runs a command under /usr/bin/time; prints "wall_s max_rss_kb".
timed() {
  /usr/bin/time -f '%e %M' -o "$WORK/time.out" "$@" >/dev/null 2>"$WORK/stderr.out" ||
    { cat "$WORK/stderr.out" >&2; exit 1; }
  cat "$WORK/time.out"
}

# The one-time compilation, into an empty cache.
rm -rf "$WORK/cache"
read -r compile_s compile_rss < <(timed "$CUZK" wtns calculate --witness-cache "$WORK/cache" "$WASM" "$WORK/input.json" "$WORK/cuzk.wtns")
echo "cuzk, empty cache (wasm2c + cc + witness): ${compile_s} s, ${compile_rss} KB"

best_node=999999 best_cuzk=999999
for ((i = 1; i <= REPS; i++)); do
  read -r s kb < <(timed "$SNARKJS" wtns calculate "$WASM" "$WORK/input.json" "$WORK/node.wtns")
  echo "node run $i: ${s} s, ${kb} KB"
  best_node=$(echo "$s $best_node" | awk '{print ($1 < $2) ? $1 : $2}'); node_kb=$kb
  read -r s kb < <(timed "$CUZK" wtns calculate --witness-cache "$WORK/cache" "$WASM" "$WORK/input.json" "$WORK/cuzk.wtns")
  echo "cuzk run $i: ${s} s, ${kb} KB"
  best_cuzk=$(echo "$s $best_cuzk" | awk '{print ($1 < $2) ? $1 : $2}'); cuzk_kb=$kb
done
cmp "$WORK/node.wtns" "$WORK/cuzk.wtns" || { echo "the two witnesses differ" >&2; exit 1; }

echo
echo "| witness of $NAME (1,034,000 constraints) | wall, best of $REPS | peak RSS |"
echo "|---|---|---|"
echo "| snarkjs wtns calculate (Node $(node --version)) | ${best_node} s | $((node_kb / 1024)) MB |"
echo "| cuzk wtns calculate (cached) | ${best_cuzk} s | $((cuzk_kb / 1024)) MB |"
echo "| cuzk wtns calculate, first run (compiles the wasm) | ${compile_s} s | $((compile_rss / 1024)) MB |"
