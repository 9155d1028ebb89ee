#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The demonstration scripts/run.sh runs after building: real proofs of bundled circuits with the
# `cuzk` command, each verified by `cuzk verify` (and by snarkjs too where the npm tools are
# installed), then `cuzk selfcheck`.
#
#   scripts/demo.sh [CUZK]     CUZK defaults to build/src/apps/cuzk
#
#   1. circomlib's Poseidon(2) (517 constraints) on BN254 and on BLS12-381, with the proving keys
#      snarkjs made (tests/data/snarkjs/<curve>/poseidon);
#   2. a chain of 127 Poseidon(2) hashes (65,659 constraints, a 2^17 domain) on BN254, with a key
#      from `cuzk setup` (a development setup: not a ceremony);
#   3. cuzk selfcheck.
# `cuzk prove` picks the GPU prover when the build has the CUDA backend and a device answers, and
# the CPU otherwise; its --verbose output names the backend that ran. Files go to $BUILD_DIR/demo.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
[[ $BUILD_DIR = /* ]] || BUILD_DIR=$ROOT/$BUILD_DIR
CUZK=${1:-$BUILD_DIR/src/apps/cuzk}
DATA=$ROOT/tests/data/snarkjs
OUT=$BUILD_DIR/demo
SNARKJS=$ROOT/tools/node/node_modules/.bin/snarkjs
mkdir -p "$OUT"

if command -v nvidia-smi >/dev/null && gpu=$(nvidia-smi -L 2>/dev/null | head -n1) && [[ -n $gpu ]]; then
  echo "GPU present: $gpu (cuzk prove uses it when this build has the CUDA backend)"
else
  echo "no GPU on this machine: proofs run on the CPU"
fi
echo "threads: ${CUZK_THREADS:-$(nproc)}"

snarkjs_verify() {
  if [[ -x $SNARKJS ]]; then
    printf '  snarkjs groth16 verify: '
    "$SNARKJS" groth16 verify "$@" 2>&1 | grep -oE 'OK!|Invalid proof' || true
  fi
}

prove_and_verify() {
  local name=$1 zkey=$2 wtns=$3 vk=$4 dir=$OUT/$1
  mkdir -p "$dir"
  printf '\n-- %s\n$ cuzk --verbose prove %s %s proof.json public.json\n' "$name" \
    "${zkey#"$ROOT"/}" "${wtns#"$ROOT"/}"
  "$CUZK" --verbose prove "$zkey" "$wtns" "$dir/proof.json" "$dir/public.json"
  printf '$ cuzk verify %s public.json proof.json\n  ' "${vk#"$ROOT"/}"
  "$CUZK" verify "$vk" "$dir/public.json" "$dir/proof.json"
  snarkjs_verify "$vk" "$dir/public.json" "$dir/proof.json"
  echo "  public signals: $(tr -d ' \n' <"$dir/public.json")"
}

for curve in bn128 bls12381; do
  d=$DATA/$curve/poseidon
  prove_and_verify "poseidon-$curve" "$d/circuit.zkey" "$d/circuit.wtns" "$d/verification_key.json"
done

chain=$DATA/bn128/poseidon_chain
mkdir -p "$OUT/chain"
xz -dc "$chain/circuit.r1cs.xz" >"$OUT/chain/circuit.r1cs"
printf '\n-- poseidon-chain-bn128: 65,659 constraints\n$ cuzk setup circuit.r1cs circuit.zkey --vk verification_key.json\n'
"$CUZK" setup "$OUT/chain/circuit.r1cs" "$OUT/chain/circuit.zkey" --vk "$OUT/chain/verification_key.json"
prove_and_verify "poseidon-chain-bn128" "$OUT/chain/circuit.zkey" "$chain/circuit.wtns" \
  "$OUT/chain/verification_key.json"

printf '\n-- cuzk selfcheck\n'
"$CUZK" selfcheck
