#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Makes the snarkjs test fixtures in tests/data/snarkjs/<curve>/ for both curves (bn128, bls12381)
# with the pinned npm tools in tools/node (scripts/setup.sh installs them).
#
# Two kinds of circuit:
#   multiplier, poseidon, wide   small: the whole snarkjs flow (setup with a 2^10 powers of tau,
#                                proof, verification key) is committed, so cuzk is tested against
#                                keys and proofs snarkjs made itself;
#   poseidon_chain               2^16+ constraints: only the .r1cs (xz-compressed) and the .wtns are
#                                committed. A 2^17 powers of tau takes snarkjs many minutes on two
#                                cores and the zkey would be 30-45 MB, so the interop tests make its
#                                zkey with `cuzk setup` and let snarkjs prove and verify with it.
#
#   tests/data/snarkjs/make_fixtures.sh           make what is missing, verify what is there
#   tests/data/snarkjs/make_fixtures.sh --force   make every fixture again (the powers of tau in
#                                                 the work folder are reused: they are the same)
#   tests/data/snarkjs/make_fixtures.sh --check   only check the committed files: each witness
#                                                 satisfies its .r1cs and each proof verifies;
#                                                 exits 77 (CTest's "skipped") without the tools
#
# Every random choice in the setup is a beacon with a fixed hash, so a re-run gives byte-identical
# .r1cs, .wtns, .zkey and verification_key.json files; only proof.json changes (snarkjs draws r
# and s from the OS). Intermediate files (the powers of tau, compiled wasm) go to a work folder
# under build/, which git ignores; they are reused by later runs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
WORK=${CUZK_FIXTURE_WORK:-$ROOT/build/snarkjs-fixtures}
NODE_MODULES=tools/node/node_modules  # circom2 (WASI) takes relative paths only, see rel()
POWER=10                              # 2^10 >= Poseidon(2)'s 517 constraints + 3 public + 1
CURVES=(bn128 bls12381)
CIRCUITS=(multiplier poseidon wide)
BIG_CIRCUITS=(poseidon_chain)
FILES=(circuit.r1cs circuit.wtns circuit.zkey verification_key.json proof.json public.json input.json)
BIG_FILES=(circuit.r1cs.xz circuit.wtns input.json)

MODE=make
case "${1:-}" in
  --force) MODE=force ;;
  --check) MODE=check ;;
  "") ;;
  *) echo "usage: $0 [--force | --check]" >&2; exit 2 ;;
esac

cd "$ROOT"
if [[ ! -x $NODE_MODULES/.bin/snarkjs || ! -x $NODE_MODULES/.bin/circom2 ]]; then
  if [[ $MODE == check ]]; then
    echo "skipped: the npm tools are not installed in tools/node (run scripts/setup.sh)"
    exit 77
  fi
  bash scripts/setup.sh
fi
SNARKJS=$ROOT/$NODE_MODULES/.bin/snarkjs
CIRCOM=$ROOT/$NODE_MODULES/.bin/circom2

log() { printf '[make_fixtures] %s\n' "$*"; }
# Runs a snarkjs command quietly; on failure shows what it printed.
sj() {
  local out
  if ! out=$("$SNARKJS" "$@" 2>&1); then
    printf '%s\n' "$out" >&2
    echo "[make_fixtures] FAILED: snarkjs $*" >&2
    exit 1
  fi
}
# circom2 runs under WASI with the cwd and its parents opened as relative paths: absolute ones fail.
rel() { realpath -m --relative-to="$ROOT" "$1"; }
beacon() { printf 'cuzk snarkjs fixtures: %s' "$1" | sha256sum | cut -c1-64; }

# snarkjs and circom spell the curves differently.
snarkjs_curve() { [[ $1 == bn128 ]] && echo bn128 || echo bls12-381; }

# Output folder of a circuit: the multiplier is each curve's main fixture and sits at the top of the
# curve's folder (tests read <curve>/verification_key.json); the others get a subfolder.
out_dir() { [[ $2 == multiplier ]] && echo "$HERE/$1" || echo "$HERE/$1/$2"; }

have_all() {
  local f
  for f in "${FILES[@]}"; do [[ -s $1/$f ]] || return 1; done
}
have_big() {
  local f
  for f in "${BIG_FILES[@]}"; do [[ -s $1/$f ]] || return 1; done
}

make_ptau() {
  local curve=$1 dir=$WORK/$1
  local final=$dir/pot${POWER}_final.ptau
  [[ -s $final ]] && return 0
  mkdir -p "$dir"
  log "$curve: powers of tau 2^$POWER (takes up to a minute)"
  sj powersoftau new "$(snarkjs_curve "$curve")" "$POWER" "$dir/pot${POWER}_0.ptau"
  sj powersoftau beacon "$dir/pot${POWER}_0.ptau" "$dir/pot${POWER}_1.ptau" \
    "$(beacon "$curve phase 1")" 10 -n="cuzk fixtures phase 1"
  sj powersoftau prepare phase2 "$dir/pot${POWER}_1.ptau" "$final.tmp"
  mv "$final.tmp" "$final"
}

# Compiles a circuit for a curve into $WORK/<curve>/<circuit>/ and computes and checks its witness.
compile_and_witness() {
  local curve=$1 circuit=$2 dir=$WORK/$1/$2
  rm -rf "$dir" && mkdir -p "$dir"
  log "$curve/$circuit: compile"
  (cd "$ROOT" && "$CIRCOM" "tests/data/snarkjs/circuits/$circuit.circom" --r1cs --wasm \
      --prime "$curve" -l "$NODE_MODULES" -o "$(rel "$dir")" >"$dir/circom.log" 2>&1) ||
    { cat "$dir/circom.log" >&2; exit 1; }
  cp "$HERE/circuits/$circuit.input.json" "$dir/input.json"
  log "$curve/$circuit: witness"
  sj wtns calculate "$dir/${circuit}_js/$circuit.wasm" "$dir/input.json" "$dir/circuit.wtns"
  sj wtns check "$dir/$circuit.r1cs" "$dir/circuit.wtns"
}

make_big_circuit() {
  local curve=$1 circuit=$2 out=$3 dir=$WORK/$1/$2
  compile_and_witness "$curve" "$circuit"
  mkdir -p "$out"
  # -T1: the same bytes on every machine (multi-threaded xz splits blocks by core count).
  xz -9 -T1 -c "$dir/$circuit.r1cs" >"$out/circuit.r1cs.xz"
  cp "$dir/circuit.wtns" "$dir/input.json" "$out/"
}

# Checks a committed big circuit: its witness satisfies the decompressed .r1cs.
check_big_circuit() {
  local curve=$1 circuit=$2 out=$3 tmp
  tmp=$(mktemp -d)
  xz -dc "$out/circuit.r1cs.xz" >"$tmp/circuit.r1cs"
  sj wtns check "$tmp/circuit.r1cs" "$out/circuit.wtns"
  rm -rf "$tmp"
}

make_circuit() {
  local curve=$1 circuit=$2 out=$3
  local dir=$WORK/$curve/$circuit ptau=$WORK/$curve/pot${POWER}_final.ptau
  compile_and_witness "$curve" "$circuit"
  mkdir -p "$out"
  log "$curve/$circuit: groth16 setup"
  sj groth16 setup "$dir/$circuit.r1cs" "$ptau" "$dir/circuit_0.zkey"
  sj zkey beacon "$dir/circuit_0.zkey" "$dir/circuit.zkey" \
    "$(beacon "$curve $circuit phase 2")" 10 -n="cuzk fixtures phase 2"
  sj zkey verify "$dir/$circuit.r1cs" "$ptau" "$dir/circuit.zkey"
  sj zkey export verificationkey "$dir/circuit.zkey" "$dir/verification_key.json"
  log "$curve/$circuit: prove"
  sj groth16 prove "$dir/circuit.zkey" "$dir/circuit.wtns" "$dir/proof.json" "$dir/public.json"
  sj groth16 verify "$dir/verification_key.json" "$dir/public.json" "$dir/proof.json"
  cp "$dir/$circuit.r1cs" "$out/circuit.r1cs"
  cp "$dir/circuit.wtns" "$dir/circuit.zkey" "$dir/verification_key.json" "$dir/proof.json" \
    "$dir/public.json" "$dir/input.json" "$out/"
}

for curve in "${CURVES[@]}"; do
  for circuit in "${CIRCUITS[@]}"; do
    out=$(out_dir "$curve" "$circuit")
    if [[ $MODE == check ]]; then
      have_all "$out" || { log "$curve/$circuit: files missing in $out" >&2; exit 1; }
      sj wtns check "$out/circuit.r1cs" "$out/circuit.wtns"
      sj groth16 verify "$out/verification_key.json" "$out/public.json" "$out/proof.json"
      log "$curve/$circuit: witness satisfies the r1cs, proof verifies"
      continue
    fi
    if [[ $MODE == make ]] && have_all "$out"; then
      sj groth16 verify "$out/verification_key.json" "$out/public.json" "$out/proof.json"
      log "$curve/$circuit: present, proof verifies"
      continue
    fi
    make_ptau "$curve"
    make_circuit "$curve" "$circuit" "$out"
    log "$curve/$circuit: done, proof verifies"
  done
  for circuit in "${BIG_CIRCUITS[@]}"; do
    out=$(out_dir "$curve" "$circuit")
    if [[ $MODE == check ]]; then
      have_big "$out" || { log "$curve/$circuit: files missing in $out" >&2; exit 1; }
      check_big_circuit "$curve" "$circuit" "$out"
      log "$curve/$circuit: witness satisfies the r1cs"
      continue
    fi
    if [[ $MODE == make ]] && have_big "$out"; then
      check_big_circuit "$curve" "$circuit" "$out"
      log "$curve/$circuit: present, witness satisfies the r1cs"
      continue
    fi
    make_big_circuit "$curve" "$circuit" "$out"
    log "$curve/$circuit: done, witness satisfies the r1cs"
  done
done
