#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# `cuzk wtns calculate` and `cuzk fullprove` on circom circuits new to the rest of the tests
# (tests/data/witness), one curve:
#
#   wtns.sh CUZK CURVE [WORK]
#     CUZK   the cuzk binary          CURVE  bn128 | bls12381
#     WORK   scratch folder (default: a temporary one)
#
# What it checks:
#   - the .wtns of each circuit is byte-identical to the one snarkjs made from the same wasm and
#     input; the second run takes the compiled code from the cache;
#   - a failing assert exits 1 with circom's message (the error and the template and line);
#   - bad input JSON exits 1 with a message naming the file, the signal and what was wrong;
#   - `cuzk fullprove` with a key from `cuzk setup` gives a proof that `cuzk verify` accepts, and
#     `snarkjs groth16 verify` too where the npm tools are installed (snarkjs's own fullprove with
#     the same key gives the same public.json);
#   - through the daemon (a build with it): `cuzk register --wasm` and `cuzk prove-remote --input`
#     give the same public.json and a proof `cuzk verify` accepts; an input the circuit refuses fails
#     that job (exit 1, circom's message) and the next job proves.
# Exits 77 (CTest's "skipped") when wasm2c is not installed (scripts/setup.sh installs wabt).
set -euo pipefail

if (($# < 2)); then
  echo "usage: $0 CUZK CURVE [WORK]" >&2
  exit 2
fi
CUZK=$(realpath "$1")
CURVE=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SNARKJS=$ROOT/tools/node/node_modules/.bin/snarkjs
DATA=$ROOT/tests/data/witness
CIRCUITS=$DATA/circuits
# shellcheck source=expect_error.sh
source "$HERE/expect_error.sh"

if ! command -v wasm2c >/dev/null; then
  echo "skipped: wasm2c is not installed (apt-get install wabt, or scripts/setup.sh)"
  exit 77
fi
if [[ -n ${3:-} ]]; then
  WORK=$3
  rm -rf "$WORK" && mkdir -p "$WORK"
else
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
fi
CACHE=(--witness-cache "$WORK/cache")
fail() { echo "FAIL [$CURVE] $*" >&2; exit 1; }
ok() { echo "ok   [$CURVE] $*"; }

# ---- byte-identical witnesses ----------------------------------------------------------------
for c in matrix range_check; do
  "$CUZK" wtns calculate "${CACHE[@]}" "$DATA/$CURVE/$c.wasm" "$CIRCUITS/$c.input.json" "$WORK/$c.wtns"
  cmp "$WORK/$c.wtns" "$DATA/$CURVE/$c.wtns" || fail "$c: the .wtns differs from snarkjs's"
  ok "$c: .wtns byte-identical to snarkjs's"
done
n_cached=$(find "$WORK/cache" -name '*.so' | wc -l)
((n_cached == 2)) || fail "expected 2 compiled circuits in the cache, found $n_cached"
"$CUZK" -v wtns calculate "${CACHE[@]}" "$DATA/$CURVE/matrix.wasm" "$CIRCUITS/matrix.input.json" "$WORK/again.wtns" 2>"$WORK/again.log"
grep -q 'from the cache' "$WORK/again.log" || fail "the second run compiled again: $(cat "$WORK/again.log")"
cmp "$WORK/again.wtns" "$DATA/$CURVE/matrix.wtns" || fail "the cached run's .wtns differs"
ok "the second run uses the cached code"

# ---- circom's message for a failed assert ---------------------------------------------------
echo '{"x": 100}' >"$WORK/over.json"
W=$DATA/$CURVE/range_check.wasm
expect_error "assert: circom's error" "Assert Failed." "$CUZK" wtns calculate "${CACHE[@]}" "$W" "$WORK/over.json" "$WORK/x.wtns"
expect_error "assert: template and line" "Error in template Bounded_0 line: 9" \
  "$CUZK" wtns calculate "${CACHE[@]}" "$W" "$WORK/over.json" "$WORK/x.wtns"
expect_error "assert: the caller's line" "Error in template RangeCheck_1 line: 17" \
  "$CUZK" wtns calculate "${CACHE[@]}" "$W" "$WORK/over.json" "$WORK/x.wtns"
[[ ! -e $WORK/x.wtns ]] || fail "a failed witness left a file"

# ---- bad input JSON ------------------------------------------------------------------------
M=$DATA/$CURVE/matrix.wasm
full='"m": [[1,2,3],[4,5,6]], "x": [1,2,3], "k": 1, "cube": [[[1,2],[3,4]],[[5,6],[7,8]]]'
bad() {  # NAME NEEDLE JSON
  printf '%s\n' "$3" >"$WORK/bad.json"
  expect_error "$1" "$2" "$CUZK" wtns calculate "${CACHE[@]}" "$M" "$WORK/bad.json" "$WORK/x.wtns"
}
bad "input: not JSON" "bad.json: not valid JSON" '{"m": [1, 2'
bad "input: not an object" "bad.json: expected a JSON object" '[1, 2]'
bad "input: unknown signal" "bad.json: extra: the circuit" "{$full, \"extra\": 5}"
bad "input: too few values" "bad.json: m: expected 6 values" '{"m": [[1,2,3],[4,5]]}'
bad "input: too many values" "bad.json: x: expected 3 values (the circuit's size of this input), found 4" \
  '{"m": [[1,2,3],[4,5,6]], "x": [1,2,3,4]}'
bad "input: missing signals" "not all inputs are given: 10 of the circuit's 18" '{"m": [[1,2,3],[4,5,6]], "x": [1,2,3], "k": 1}'
# With circom's .sym beside the wasm's folder (circom writes <name>.sym beside <name>_js/), the
# missing input is named. A .sym as circom writes it: labelIdx,varIdx,componentIdx,name.
mkdir -p "$WORK/sym/matrix_js"
cp "$M" "$WORK/sym/matrix_js/matrix.wasm"
printf '%s\n' "1,1,0,main.out[0]" "2,-1,0,main.m[0][0]" "3,-1,0,main.m[1][2]" "4,-1,0,main.x[0]" "5,-1,0,main.k" \
  "6,-1,0,main.cube[0][0][0]" "7,-1,0,main.cube[1][1][1]" "8,-1,1,main.sub.cube" >"$WORK/sym/matrix.sym"
printf '%s\n' '{"m": [[1,2,3],[4,5,6]], "x": [1,2,3], "k": 1}' >"$WORK/bad.json"
expect_error "input: missing signals named from the .sym" \
  "not all inputs are given: 10 of the circuit's 18 input values; missing: cube (from $WORK/sym/matrix.sym)" \
  "$CUZK" wtns calculate "${CACHE[@]}" "$WORK/sym/matrix_js/matrix.wasm" "$WORK/bad.json" "$WORK/x.wtns"
bad "input: bad value" 'bad.json: m[1][1]: expected a decimal string' '{"m": [[1,2,3],[4,"five",6]]}'
# A byte that is not UTF-8 (docs/HARDENING.md, finding 27), named by its offset.
printf '{"k": "12345\xff"}\n' >"$WORK/latin1.json"
expect_error "input: not UTF-8" "$WORK/latin1.json: not UTF-8 at byte 12" \
  "$CUZK" wtns calculate "${CACHE[@]}" "$M" "$WORK/latin1.json" "$WORK/x.wtns"
bad "input: fraction" "bad.json: k: expected an integer, found 1.5" "{\"k\": 1.5}"
bad "input: past 2^53" "write it as a decimal string" "{\"k\": 123456789012345678901}"
expect_error "input: missing file" "$WORK/none.json" "$CUZK" wtns calculate "${CACHE[@]}" "$M" "$WORK/none.json" "$WORK/x.wtns"
expect_error "wasm: missing file" "$WORK/none.wasm" "$CUZK" wtns calculate "${CACHE[@]}" "$WORK/none.wasm" \
  "$CIRCUITS/matrix.input.json" "$WORK/x.wtns"
printf 'not wasm' >"$WORK/junk.wasm"
expect_error "wasm: not wasm" "junk.wasm: expected the circuit's witness code" "$CUZK" wtns calculate "${CACHE[@]}" \
  "$WORK/junk.wasm" "$CIRCUITS/matrix.input.json" "$WORK/x.wtns"
# Valid WebAssembly that is not circom's witness code: refused by what it exports, before wasm2c
# and the C compiler run (docs/HARDENING.md, finding 26).
printf '%s\n' '(module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))' >"$WORK/other.wat"
wat2wasm "$WORK/other.wat" -o "$WORK/other.wasm"
expect_error "wasm: another module, not circom's" "other.wasm: not a circom witness calculator: it exports no getVersion" \
  "$CUZK" wtns calculate "${CACHE[@]}" "$WORK/other.wasm" "$CIRCUITS/matrix.input.json" "$WORK/x.wtns"
# The wasm where the input JSON belongs (the two commands take them in opposite orders): named as a
# wasm file, not wabt's "bad magic value" about the JSON.
expect_error "input: a wasm, arguments swapped" "$M: expected the circuit's input JSON, found a wasm file" \
  "$CUZK" wtns calculate "${CACHE[@]}" "$CIRCUITS/matrix.input.json" "$M" "$WORK/x.wtns"

# ---- fullprove -------------------------------------------------------------------------------
"$CUZK" setup "$DATA/$CURVE/matrix.r1cs" "$WORK/matrix.zkey" --vk "$WORK/vk.json" >/dev/null
"$CUZK" fullprove "${CACHE[@]}" --cpu "$CIRCUITS/matrix.input.json" "$M" "$WORK/matrix.zkey" "$WORK/proof.json" "$WORK/public.json"
[[ $("$CUZK" verify "$WORK/vk.json" "$WORK/public.json" "$WORK/proof.json") == "OK!" ]] || fail "cuzk verify refused fullprove's proof"
ok "fullprove: the proof verifies with cuzk verify"
expect_error "fullprove: failed assert" "Assert Failed." "$CUZK" fullprove "${CACHE[@]}" "$WORK/over.json" "$W" \
  "$WORK/matrix.zkey" "$WORK/p2.json" "$WORK/pub2.json"
expect_error "fullprove: witness of another circuit" "witness length mismatch" "$CUZK" fullprove "${CACHE[@]}" \
  "$CIRCUITS/range_check.input.json" "$W" "$WORK/matrix.zkey" "$WORK/p2.json" "$WORK/pub2.json"
expect_error "fullprove: input not UTF-8" "$WORK/latin1.json: not UTF-8 at byte 12" "$CUZK" fullprove "${CACHE[@]}" \
  "$WORK/latin1.json" "$M" "$WORK/matrix.zkey" "$WORK/p2.json" "$WORK/pub2.json"
expect_error "fullprove: a wasm, arguments swapped" "$M: expected the circuit's input JSON, found a wasm file" \
  "$CUZK" fullprove "${CACHE[@]}" "$M" "$CIRCUITS/matrix.input.json" "$WORK/matrix.zkey" "$WORK/p2.json" "$WORK/pub2.json"
if [[ -x $SNARKJS ]] && command -v node >/dev/null; then
  "$SNARKJS" groth16 verify "$WORK/vk.json" "$WORK/public.json" "$WORK/proof.json" | grep -q 'OK!' ||
    fail "snarkjs groth16 verify refused fullprove's proof"
  ok "fullprove: the proof verifies with snarkjs groth16 verify"
  "$SNARKJS" groth16 fullprove "$CIRCUITS/matrix.input.json" "$M" "$WORK/matrix.zkey" "$WORK/sj_proof.json" "$WORK/sj_public.json" >/dev/null
  cmp "$WORK/public.json" "$WORK/sj_public.json" || fail "public.json differs from snarkjs groth16 fullprove's"
  ok "fullprove: public.json byte-identical to snarkjs groth16 fullprove's"
else
  echo "note: snarkjs not installed; its checks skipped"
fi

# ---- through the daemon ----------------------------------------------------------------------
if "$CUZK" --help 2>/dev/null | grep -q prove-remote; then
  D=$WORK/daemon
  mkdir -p "$D"
  # key_dirs: the daemon registers a client's zkey and wasm paths only under these.
  printf 'data_dir = "%s"\nsocket = "%s"\nhttp = ""\nbackend = "cpu"\nlog_level = "warn"\nkey_dirs = ["%s", "%s"]\n' \
    "$D/state" "$D/cuzk.sock" "$WORK" "$(dirname "$M")" >"$D/cuzk.toml"
  CUZK_WITNESS_CACHE=$WORK/cache "$CUZK" daemon --config "$D/cuzk.toml" >"$D/daemon.log" 2>&1 &
  daemon_pid=$!
  stop_daemon() { kill -TERM "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" 2>/dev/null || true; }
  for _ in $(seq 1 300); do
    "$CUZK" status --socket "$D/cuzk.sock" >/dev/null 2>&1 && break
    kill -0 "$daemon_pid" 2>/dev/null || { cat "$D/daemon.log" >&2; fail "the daemon exited"; }
    sleep 0.1
  done
  C=(--socket "$D/cuzk.sock")
  "$CUZK" register "${C[@]}" matrix "$WORK/matrix.zkey" --wasm "$M" || { stop_daemon; fail "register --wasm"; }
  "$CUZK" prove-remote "${C[@]}" -c matrix --input "$CIRCUITS/matrix.input.json" -o "$D/out" ||
    { stop_daemon; fail "prove-remote --input"; }
  cmp "$D/out/public.json" "$WORK/public.json" || { stop_daemon; fail "the daemon's public.json differs from fullprove's"; }
  [[ $("$CUZK" verify "$WORK/vk.json" "$D/out/public.json" "$D/out/proof.json") == "OK!" ]] ||
    { stop_daemon; fail "cuzk verify refused the daemon's proof"; }
  ok "daemon: register --wasm, prove-remote --input: the proof verifies, public.json as fullprove's"
  printf '{"m": [[1,2,3],[4,5,6]], "x": [1,2,3], "k": 1}\n' >"$D/missing.json"
  expect_error "daemon: a missing signal fails the job" "not all inputs are given" \
    "$CUZK" prove-remote "${C[@]}" -c matrix --input "$D/missing.json"
  printf '{"m": [1, 2\n' >"$D/notjson.json"
  expect_error "daemon: input JSON that is not JSON" "not valid JSON" \
    "$CUZK" prove-remote "${C[@]}" -c matrix --input "$D/notjson.json"
  expect_error "daemon: input JSON that is not UTF-8" "$WORK/latin1.json: not UTF-8 at byte 12" \
    "$CUZK" prove-remote "${C[@]}" -c matrix --input "$WORK/latin1.json"
  "$CUZK" prove-remote "${C[@]}" -c matrix --input "$CIRCUITS/matrix.input.json" -o "$D/out2" ||
    { stop_daemon; fail "the job after a failed one"; }
  ok "daemon: the job after the failed ones proves"
  stop_daemon
fi

echo "wtns.sh [$CURVE]: $PASSES error checks passed, $FAILS failed"
((FAILS == 0))
