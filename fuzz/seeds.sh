#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# The seed corpus of a fuzz target (fuzz/CMakeLists.txt), made from the fixtures in tests/data:
#   fuzz/seeds.sh TARGET DIR     fills DIR (emptied first) with TARGET's seeds
# The fixtures are named here by path and copied into DIR (a build folder), never into the
# repository. The request target's seeds are SubmitProofRequest messages that carry the fixture
# witnesses, inline or by path, encoded from protobuf text by protoc.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA=$ROOT/tests/data/snarkjs
target=${1:?usage: fuzz/seeds.sh TARGET DIR}
dir=${2:?usage: fuzz/seeds.sh TARGET DIR}
rm -rf "$dir"
mkdir -p "$dir"

# Every fixture called NAME, in every circuit folder of both curves, as DIR/<curve>_<circuit>_NAME.
fixtures() {
  local name=$1 f rel
  for f in "$DATA"/*/"$name" "$DATA"/*/*/"$name"; do
    [[ -f $f ]] || continue
    rel=${f#"$DATA"/}
    cp "$f" "$dir/${rel//\//_}"
  done
}

# protobuf text escapes for a file's bytes: \xNN each.
escaped() { od -An -v -tx1 "$1" | tr -d ' \n' | sed 's/../\\x&/g'; }

# One encoded SubmitProofRequest per call: NAME, then the message in protobuf text.
request() {
  protoc --proto_path="$ROOT/proto" --encode=cuzk.v1.SubmitProofRequest cuzk/v1/proving.proto \
    <<<"$2" >"$dir/$1.pb"
}

requests() {
  local bn=$DATA/bn128 bls=$DATA/bls12381
  request inline_bn128 "circuit: \"multiplier-bn128\" partitions { wtns: \"$(escaped "$bn/circuit.wtns")\" }"
  request inline_bls12381 "circuit: \"multiplier-bls12381\" priority: HIGH request_id: \"r-1\"
    deadline_unix_ms: 1700000000000 partitions { wtns: \"$(escaped "$bls/circuit.wtns")\" }"
  request path_bn128 "circuit: \"multiplier-bn128\" priority: LOW partitions { path: \"$bn/circuit.wtns\" }"
  request two_partitions "circuit: \"multiplier-bls12381\" request_id: \"two\"
    partitions { path: \"$bls/circuit.wtns\" } partitions { wtns: \"$(escaped "$bls/circuit.wtns")\" }"
  request wrong_curve "circuit: \"multiplier-bls12381\" partitions { wtns: \"$(escaped "$bn/circuit.wtns")\" }"
  request wrong_length "circuit: \"multiplier-bn128\" priority: CRITICAL
    partitions { wtns: \"$(escaped "$bn/wide/circuit.wtns")\" }"
  request outside_dirs "circuit: \"multiplier-bn128\" partitions { path: \"$bn/../../README.md\" }"
}

case $target in
  zkey_fuzz) fixtures circuit.zkey ;;
  wtns_fuzz) fixtures circuit.wtns ;;
  r1cs_fuzz) fixtures circuit.r1cs ;;
  proof_json_fuzz) fixtures proof.json ;;
  public_json_fuzz) fixtures public.json ;;
  verification_key_json_fuzz) fixtures verification_key.json ;;
  circom_input_fuzz)
    fixtures input.json
    for f in "$ROOT"/tests/data/witness/circuits/*.input.json; do cp "$f" "$dir/witness_${f##*/}"; done ;;
  submit_request_fuzz) requests ;;
  *) echo "fuzz/seeds.sh: no seeds for target '$target'" >&2; exit 2 ;;
esac
